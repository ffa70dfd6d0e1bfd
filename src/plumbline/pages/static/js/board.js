// The issues board: drag a card to another column (native drag and drop), or pick its status
// in the card's select (keyboard, phones). Either way the move is POSTed to the board's move
// route, which applies the API's rules; a refused move snaps back and says why.
const token = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

const prepare = () => {
  for (const board of document.querySelectorAll("[data-board]")) board.classList.add("js-board");
};

const say = (board, message, bad) => {
  const status = board.parentElement.querySelector(".board-status");
  if (!status) return;
  status.textContent = message;
  status.classList.toggle("bad", Boolean(bad));
};

const recount = (board) => {
  for (const column of board.querySelectorAll(".column")) {
    const count = column.querySelector(".column-count");
    if (count) count.textContent = String(column.querySelectorAll(".ticket").length);
  }
};

const columnName = (column) => column.querySelector("h2")?.firstChild?.textContent.trim() || "";

const reason = async (response) => {
  const type = response.headers.get("content-type") || "";
  if (type.includes("json")) return (await response.json()).error;
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  return (page.querySelector(".lead") || page.querySelector("h1"))?.textContent.trim();
};

const move = async (card, status) => {
  const board = card.closest("[data-board]");
  const from = card.closest(".column");
  const to = board.querySelector(`.column[data-status="${status}"]`);
  if (!to || from === to) return;
  const next = card.nextElementSibling;
  const select = card.querySelector("[data-move-select]");
  const title = card.querySelector(".ticket-title")?.textContent.trim() || "";
  to.querySelector("h2").after(card);  // the moved card first in its new column
  recount(board);
  const body = new URLSearchParams({ csrf: token(), issueId: card.dataset.id, status });
  let refusal = null;
  try {
    const response = await fetch(board.dataset.move, {
      method: "POST",
      body,
      headers: { Accept: "application/json", "X-CSRF-Token": token() },
      credentials: "same-origin",
    });
    if (!response.ok) refusal = (await reason(response)) || response.statusText;
  } catch {
    refusal = board.dataset.offline || "No connection";
  }
  if (refusal) {
    from.insertBefore(card, next && next.parentElement === from ? next : null);
    if (select) select.value = from.dataset.status;
    card.classList.add("refused");
    setTimeout(() => card.classList.remove("refused"), 2500);
    recount(board);
    say(board, `${title}: ${refusal}`, true);
    return;
  }
  if (select) select.value = status;
  say(board, `${title} → ${columnName(to)}`, false);
};

let dragged = null;
document.addEventListener("dragstart", (event) => {
  const card = event.target.closest?.(".js-board .ticket[draggable=true]");
  if (!card) return;
  dragged = card;
  card.classList.add("dragging");
  event.dataTransfer.effectAllowed = "move";
  event.dataTransfer.setData("text/plain", card.dataset.id);
});
document.addEventListener("dragend", () => {
  dragged?.classList.remove("dragging");
  dragged = null;
  for (const c of document.querySelectorAll(".drop-target")) c.classList.remove("drop-target");
});
document.addEventListener("dragover", (event) => {
  const column = event.target.closest?.(".js-board .column");
  if (!column || !dragged) return;
  event.preventDefault();
  event.dataTransfer.dropEffect = "move";
  for (const c of document.querySelectorAll(".drop-target")) if (c !== column) c.classList.remove("drop-target");
  column.classList.add("drop-target");
});
document.addEventListener("drop", (event) => {
  const column = event.target.closest?.(".js-board .column");
  if (!column || !dragged) return;
  event.preventDefault();
  column.classList.remove("drop-target");
  move(dragged, column.dataset.status);
});

// The fallback: the card's status select moves it as soon as it changes.
document.addEventListener("change", (event) => {
  const select = event.target.closest?.(".js-board [data-move-select]");
  if (select) move(select.closest(".ticket"), select.value);
});
document.addEventListener("submit", (event) => {
  const form = event.target.closest?.(".js-board .ticket-move");
  if (!form) return;
  event.preventDefault();
  move(form.closest(".ticket"), form.querySelector("[data-move-select]").value);
});

prepare();
document.addEventListener("htmx:afterSettle", prepare);
