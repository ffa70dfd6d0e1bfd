// Photos of a record through the JSON upload routes: presign -> PUT to storage (a progress bar)
// -> complete, then the photos' part of the page again. The type and size are checked here
// against the limits the service uses (data-types, data-max-bytes); the server refuses again.
// Markup: <div data-upload data-presign data-complete data-refresh ...> with an <input
// type=file>, a <progress> and a status line; hidden until this module runs.
const token = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

const say = (box, text, error = false) => {
  const line = box.querySelector(".upload-status");
  line.textContent = text;
  line.classList.toggle("error-text", error);
};

const json = async (url, body) => {
  const answer = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": token() },
    body: JSON.stringify(body),
  });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(data.message || answer.statusText || String(answer.status));
  return data;
};

const put = (target, file, progress) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(target.method || "PUT", target.uploadUrl);
    for (const [name, value] of Object.entries(target.headers || {})) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) progress.value = Math.round((event.loaded / event.total) * 100);
    });
    xhr.addEventListener("load", () =>
      xhr.status < 300 ? resolve() : reject(new Error(xhr.statusText || String(xhr.status))));
    xhr.addEventListener("error", () => reject(new Error("network error")));
    xhr.send(file);
  });

const sha256 = async (file) => {
  if (!crypto.subtle) return undefined;
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
};

const upload = async (box, file) => {
  const types = (box.dataset.types || "").split(",").filter(Boolean);
  const named = (text) => text.replace("%name", file.name);
  if (types.length && !types.includes(file.type)) return say(box, named(box.dataset.wrongType), true);
  if (file.size > Number(box.dataset.maxBytes)) return say(box, named(box.dataset.tooBig), true);
  const progress = box.querySelector("progress");
  const input = box.querySelector("input[type=file]");
  input.disabled = true;
  progress.hidden = false;
  progress.value = 0;
  say(box, file.name);
  try {
    const target = await json(box.dataset.presign, {
      fileName: file.name, contentType: file.type, sizeBytes: file.size,
    });
    await put(target, file, progress);
    const digest = await sha256(file);
    await json(box.dataset.complete, digest ? { uploadId: target.uploadId, sha256: digest } : { uploadId: target.uploadId });
    progress.value = 100;
    say(box, box.dataset.done);
    window.htmx?.ajax("GET", box.dataset.refresh, { target: "#photos", swap: "outerHTML" });
  } catch (error) {
    progress.hidden = true;
    say(box, (box.dataset.failed || "%reason").replace("%reason", error.message), true);
  } finally {
    input.disabled = false;
    input.value = "";
  }
};

const ready = () => {
  for (const box of document.querySelectorAll("[data-upload][hidden]")) box.hidden = false;
};
document.addEventListener("change", (event) => {
  const input = event.target;
  const box = input.closest?.("[data-upload]");
  if (box && input.type === "file" && input.files?.length) upload(box, input.files[0]);
});
document.addEventListener("htmx:afterSettle", ready);
ready();
