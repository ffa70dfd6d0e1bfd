// Photos of a form that creates a record (form[data-upload-after]): the files are checked
// before anything is sent (images, size, count), the form is sent, and once the record exists
// each photo goes through the presigned sequence (presign, PUT to storage with a progress bar,
// complete); then the record's page opens. Without photos the form is sent as usual.
const token = () => document.querySelector('meta[name="csrf-token"]')?.content || "";
const IMAGE = /\.(jpe?g|png|webp|heic|heif)$/i;

const typeOf = (file) => file.type || (/\.hei[cf]$/i.test(file.name) ? "image/heic" : "");

// What is wrong with the chosen files, said before upload (the server refuses it after, too).
const problems = (input) => {
  const files = [...input.files];
  const found = [];
  if (files.length > Number(input.dataset.maxCount || 12)) found.push(input.dataset.tooMany);
  for (const file of files) {
    if (!typeOf(file).startsWith("image/") && !IMAGE.test(file.name)) {
      found.push(input.dataset.notImage.replace("%s", file.name));
    } else if (file.size > Number(input.dataset.maxBytes || 15728640)) {
      found.push(input.dataset.tooBig.replace("%s", file.name));
    }
  }
  return found;
};

const status = (form, text, bad = false) => {
  const out = form.querySelector(".photo-status");
  if (!out) return;
  out.textContent = text;
  out.classList.toggle("bad", bad);
};

const queue = (form, input) => {
  const list = form.querySelector("[data-photo-queue]");
  if (!list) return [];
  list.replaceChildren();
  return [...input.files].map((file) => {
    const li = document.createElement("li");
    const img = document.createElement("img");
    img.alt = "";
    img.src = URL.createObjectURL(file);
    const name = document.createElement("span");
    name.textContent = file.name;
    const bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", file.name);
    li.append(img, name, bar);
    list.append(li);
    return bar;
  });
};

document.addEventListener("change", (event) => {
  const input = event.target.closest?.("form[data-upload-after] [data-photos]");
  if (!input) return;
  const form = input.form;
  const found = problems(input);
  status(form, found.join(" "), found.length > 0);
  queue(form, input);
});

const json = async (url, body) => {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": token() },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
};

// The PUT to storage, with its progress (fetch has none for uploads).
const put = (target, file, bar) => new Promise((resolve, reject) => {
  const xhr = new XMLHttpRequest();
  xhr.open(target.method || "PUT", target.uploadUrl);
  for (const [name, value] of Object.entries(target.headers || {})) xhr.setRequestHeader(name, value);
  xhr.upload.addEventListener("progress", (e) => { if (e.lengthComputable && bar) bar.value = (e.loaded / e.total) * 100; });
  xhr.addEventListener("load", () => (xhr.status < 300 ? resolve() : reject(new Error(xhr.statusText || String(xhr.status)))));
  xhr.addEventListener("error", () => reject(new Error("upload failed")));
  xhr.send(file);
});

const upload = async (form, id, input, bars) => {
  const failed = [];
  const files = [...input.files];
  for (const [i, file] of files.entries()) {
    try {
      const target = await json(form.dataset.presign.replace("{id}", id), {
        fileName: file.name, contentType: typeOf(file), sizeBytes: file.size,
      });
      await put(target, file, bars[i]);
      await json(form.dataset.complete.replace("{id}", id), { uploadId: target.uploadId });
      if (bars[i]) bars[i].value = 100;
    } catch (error) {
      failed.push(`${file.name}: ${error.message}`);
    }
  }
  return failed;
};

// The form came back with its errors: show them, keeping the chosen photos.
const showErrors = (form, html) => {
  const page = new DOMParser().parseFromString(html, "text/html");
  const fresh = page.querySelector(".form-page");
  const input = form.querySelector("[data-photos]");
  const queueList = form.querySelector("[data-photo-queue]");
  const section = form.closest(".form-page");
  if (!fresh || !section) { document.documentElement.innerHTML = page.documentElement.innerHTML; return; }
  fresh.querySelector("[data-photos]")?.replaceWith(input);
  fresh.querySelector("[data-photo-queue]")?.replaceWith(queueList);
  section.replaceWith(fresh);
  (fresh.querySelector("[autofocus]") || fresh.querySelector(".summary"))?.focus();
};

document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.matches("[data-upload-after]")) return;
  const input = form.querySelector("[data-photos]");
  if (!input || input.files.length === 0) return;  // sent as usual
  // Before htmx's boost sees it: this form is sent here.
  event.preventDefault();
  event.stopImmediatePropagation();
  const found = problems(input);
  if (found.length) { status(form, found.join(" "), true); input.focus(); return; }
  if (form.dataset.sending === "1") return;
  form.dataset.sending = "1";
  const button = form.querySelector("button[type=submit]");
  button?.setAttribute("aria-disabled", "true");
  try {
    const response = await fetch(form.action, {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      body: new URLSearchParams(new FormData(form)),
    });
    if (!response.ok || !(response.headers.get("content-type") || "").includes("json")) {
      showErrors(form, await response.text());
      return;
    }
    const made = await response.json();
    const bars = queue(form, input);
    status(form, form.dataset.uploading || "…");
    const failed = await upload(form, made.id, input, bars);
    if (failed.length) {
      status(form, failed.join(" "), true);
      const link = document.createElement("a");
      link.href = made.url;
      link.className = "button";
      link.textContent = form.dataset.open || "Open the issue";
      form.querySelector(".form-actions").replaceChildren(link);
      return;
    }
    window.location.assign(made.url);
  } finally {
    delete form.dataset.sending;
    button?.removeAttribute("aria-disabled");
  }
}, true);
