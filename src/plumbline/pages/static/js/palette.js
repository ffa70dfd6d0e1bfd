// The command palette (Ctrl/Cmd-K) and "/" for search: a dialog whose input asks
// /app/search for records by number or name and for the app's commands; arrows move, Enter
// opens.
const dialog = () => document.getElementById("palette");

const open = () => {
  const d = dialog();
  if (!d || d.open) return;
  d.showModal();
  const input = d.querySelector("input");
  input.value = "";
  d.querySelector("#palette-results").replaceChildren();
  input.focus();
  input.dispatchEvent(new Event("search"));
};

const typing = (el) => el instanceof HTMLElement &&
  (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));

document.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
    event.preventDefault();
    open();
  } else if (event.key === "/" && !typing(event.target)) {
    event.preventDefault();
    const search = document.getElementById("global-search");
    if (search && search.offsetParent !== null) search.focus(); else open();
  }
});

document.addEventListener("click", (event) => {
  if (event.target.closest?.("[data-palette-open]")) { event.preventDefault(); open(); }
  const d = dialog();
  if (d?.open && event.target === d) d.close();  // a click on the backdrop
});

// Arrows move through the results; Enter follows the chosen one.
document.addEventListener("keydown", (event) => {
  const d = dialog();
  if (!d?.open || !["ArrowDown", "ArrowUp", "Enter"].includes(event.key)) return;
  const links = [...d.querySelectorAll("#palette-results a")];
  if (!links.length) return;
  let i = links.findIndex((a) => a.getAttribute("aria-selected") === "true");
  if (event.key === "Enter") {
    event.preventDefault();
    (links[i] || links[0]).click();
    d.close();
    return;
  }
  event.preventDefault();
  i = event.key === "ArrowDown" ? Math.min(i + 1, links.length - 1) : Math.max(i - 1, 0);
  links.forEach((a, n) => a.setAttribute("aria-selected", String(n === i)));
  links[i].scrollIntoView({ block: "nearest" });
});
