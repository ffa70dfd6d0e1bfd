// What every app page does: htmx sends the CSRF token; a form is sent once; menus close on
// Escape or a click elsewhere; ticked rows show the bulk bar; a boosted navigation loads the new
// page's head assets.
const token = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

document.addEventListener("htmx:configRequest", (event) => {
  event.detail.headers["X-CSRF-Token"] = token();
});

// One submission per form: the button is disabled while it is sent (the server answers a
// second POST of the same form with the first's result anyway: its "submission" key).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== "post") return;
  if (form.dataset.sending === "1") { event.preventDefault(); return; }
  form.dataset.sending = "1";
  for (const button of form.querySelectorAll("button[type=submit], button:not([type])")) {
    button.setAttribute("aria-disabled", "true");
  }
});
const resetForms = () => {
  for (const form of document.querySelectorAll("form[data-sending]")) {
    delete form.dataset.sending;
    for (const b of form.querySelectorAll("[aria-disabled=true]")) b.removeAttribute("aria-disabled");
  }
};
window.addEventListener("pageshow", resetForms);
document.addEventListener("htmx:afterRequest", resetForms);

// Menus (<details class="menu">): one open at a time; Escape or a click outside closes them.
const closeMenus = (except) => {
  for (const menu of document.querySelectorAll("details.menu[open]")) {
    if (menu !== except) menu.removeAttribute("open");
  }
};
document.addEventListener("click", (event) => {
  closeMenus(event.target.closest?.("details.menu"));
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  const open = document.querySelector("details.menu[open]");
  if (open) { open.removeAttribute("open"); open.querySelector("summary")?.focus(); }
});

// Bulk selection: rows' checkboxes (name="ids", form="bulk") and the page's "select all".
const updateBulk = () => {
  const bar = document.querySelector("form[data-bulk]");
  if (!bar) return;
  const boxes = [...document.querySelectorAll('input[name="ids"][form="bulk"]')];
  const ticked = boxes.filter((b) => b.checked).length;
  const all = bar.querySelector("[data-bulk-all]");
  bar.hidden = ticked === 0;
  const count = bar.querySelector("[data-bulk-count]");
  const total = Number(bar.dataset.total || 0);
  if (count) count.textContent = all?.checked && total ? String(total) : String(ticked);
  const allLabel = bar.querySelector(".all-matching");
  if (allLabel) allLabel.hidden = !(ticked === boxes.length && total > boxes.length);
  const page = document.querySelector("[data-select-page]");
  if (page) page.checked = boxes.length > 0 && ticked === boxes.length;
};
document.addEventListener("change", (event) => {
  const target = event.target;
  if (target.matches?.("[data-select-page]")) {
    for (const b of document.querySelectorAll('input[name="ids"][form="bulk"]')) b.checked = target.checked;
  }
  if (target.matches?.('input[name="ids"], [data-select-page], [data-bulk-all]')) updateBulk();
});
document.addEventListener("htmx:afterSettle", updateBulk);
updateBulk();

// A form's refusal is an answer too: 400, 409 and 422 are the form again with each error beside
// its field, swapped like a success (htmx 2 swaps no 4xx by default). A boosted link or form is
// a navigation: its refusal is the page to show (the form again, the 404 page). Any other
// refusal, or the error page (it says HX-Reswap: none), replaces the page's main content.
const FORM_ANSWERS = ["400", "409", "422"];
window.htmx.config.responseHandling = [
  { code: "204", swap: false },
  { code: "[23]..", swap: true },
  { code: `^(${FORM_ANSWERS.join("|")})$`, swap: true, error: false },
  { code: "[45]..", swap: true, error: true },
];
document.addEventListener("htmx:beforeSwap", (event) => {
  const detail = event.detail;
  const status = detail.xhr.status;
  if (status < 400) return;
  const errorPage = detail.xhr.getResponseHeader("HX-Reswap") === "none";
  if (detail.boosted && !errorPage) {
    detail.shouldSwap = true;
    detail.isError = false;
    return;
  }
  if (FORM_ANSWERS.includes(String(status)) && !errorPage) return;
  const main = document.getElementById("main");
  detail.shouldSwap = true;
  detail.isError = true;
  detail.target = main || document.body;
  detail.swapOverride = main ? "outerHTML" : "innerHTML";
  detail.selectOverride = main ? "#main" : null;
});

// A flash message is read, then fades from the layout on the next navigation.
document.addEventListener("htmx:beforeSwap", () => {
  for (const f of document.querySelectorAll(".flash")) f.remove();
});

// A boosted navigation swaps the body only: the new page's own stylesheets and scripts (the
// layout's head block) are added to the head here, each once. A module runs once per URL, so
// page modules listen on the document and serve every later page that needs them. (The one
// inline <style>, the brand's colours, is allowed by its hash: the same on every page.)
const loadHead = (html) => {
  if (typeof html !== "string" || !/<head[\s>]/i.test(html)) return;
  const head = new DOMParser().parseFromString(html, "text/html").head;
  for (const el of head.querySelectorAll('link[rel="stylesheet"][href], script[src]')) {
    const tag = el.tagName.toLowerCase();
    const attr = tag === "link" ? "href" : "src";
    const url = el.getAttribute(attr);
    if ([...document.head.querySelectorAll(tag)].some((x) => x.getAttribute(attr) === url)) continue;
    const copy = document.createElement(tag);
    for (const a of el.attributes) copy.setAttribute(a.name, a.value);
    document.head.append(copy);
  }
};
document.addEventListener("htmx:beforeSwap", (event) => {
  if (event.detail.boosted) loadHead(event.detail.serverResponse);
});
document.addEventListener("htmx:historyCacheMissLoad", (event) => loadHead(event.detail.response));
