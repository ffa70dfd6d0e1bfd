// A button that asks first (data-confirm="Delete the selected issues?"): a plain confirm()
// before its form is sent; cancelled, nothing is sent.
document.addEventListener("click", (event) => {
  const button = event.target.closest?.("[data-confirm]");
  if (button && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
}, true);
