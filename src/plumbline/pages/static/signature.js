// The signature pad of the proposal page: draw with a finger, pen or mouse; on submit the
// drawing goes in the form's hidden "signature" field as a PNG data URL. Without this script
// the pad stays hidden and the typed name alone signs.
(function () {
  "use strict";
  function pad(form) {
    var box = form.querySelector("[data-signature]");
    if (!box) return;
    var canvas = box.querySelector("canvas");
    var field = box.querySelector("input[name=signature]");
    var clear = box.querySelector("[data-signature-clear]");
    var ctx = canvas.getContext("2d");
    var drawn = false, down = false, last = null;
    box.hidden = false;

    function size() {
      var ratio = Math.min(window.devicePixelRatio || 1, 2);
      canvas.width = Math.round(canvas.clientWidth * ratio);
      canvas.height = Math.round(canvas.clientHeight * ratio);
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.lineWidth = 2.2;
      ctx.lineCap = "round";
      ctx.lineJoin = "round";
      ctx.strokeStyle = "#111";
      drawn = false;
    }
    function point(event) {
      var rect = canvas.getBoundingClientRect();
      return { x: event.clientX - rect.left, y: event.clientY - rect.top };
    }
    canvas.addEventListener("pointerdown", function (event) {
      down = true;
      last = point(event);
      canvas.setPointerCapture(event.pointerId);
      event.preventDefault();
    });
    canvas.addEventListener("pointermove", function (event) {
      if (!down) return;
      var next = point(event);
      ctx.beginPath();
      ctx.moveTo(last.x, last.y);
      ctx.lineTo(next.x, next.y);
      ctx.stroke();
      last = next;
      drawn = true;
      event.preventDefault();
    });
    function up() { down = false; }
    canvas.addEventListener("pointerup", up);
    canvas.addEventListener("pointercancel", up);
    clear.addEventListener("click", size);
    form.addEventListener("submit", function () {
      field.value = drawn ? canvas.toDataURL("image/png") : "";
    });
    size();
  }
  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("[data-signature-form]");
    for (var i = 0; i < forms.length; i++) pad(forms[i]);
  });
})();
