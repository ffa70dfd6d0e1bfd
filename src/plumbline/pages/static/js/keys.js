// Lists from the keyboard: j/k (or arrows with Alt) move through the rows, x ticks one,
// Enter or o opens it; c opens the page's "create" link; ? lists the shortcuts.
const typing = (el) => el instanceof HTMLElement &&
  (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT", "BUTTON"].includes(el.tagName) ||
   el.closest("dialog[open]"));

const rows = () => [...document.querySelectorAll("table.list tbody tr, .board .ticket")];

const focus = (row) => {
  for (const r of document.querySelectorAll(".focused")) r.classList.remove("focused");
  if (!row) return;
  row.classList.add("focused");
  row.scrollIntoView({ block: "nearest" });
  (row.querySelector("a") || row).focus({ preventScroll: true });
};

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
  const all = rows();
  const current = document.querySelector(".focused") || event.target.closest?.("tr, .ticket");
  const at = all.indexOf(current);
  switch (event.key) {
    case "j": focus(all[Math.min(at + 1, all.length - 1)]); break;
    case "k": focus(all[Math.max(at - 1, 0)]); break;
    case "x": {
      const box = current?.querySelector('input[type="checkbox"]');
      if (box) { box.checked = !box.checked; box.dispatchEvent(new Event("change", { bubbles: true })); }
      break;
    }
    case "o": current?.querySelector("a")?.click(); break;
    case "Enter":
      // Only for the row moved to (or its own link): Enter elsewhere keeps its meaning.
      if (!current || (event.target !== document.body && !current.contains(event.target))) return;
      current.querySelector("a")?.click();
      break;
    case "c": document.querySelector("[data-key=c]")?.click(); break;
    case "?": window.location.assign("/app/help/keys"); break;
    default: return;
  }
  event.preventDefault();
});
