// linksync page: uploads, and the live progress of the last run (server-sent events).
// Plain script, no build step. Text from files and the server is set with textContent,
// never as HTML.
"use strict";

(function () {
  const token = document.querySelector('meta[name="linksync-token"]').content;
  // This opening of the page: the files it reads are the ones dropped (or used again) in it.
  const visit = document.querySelector('meta[name="linksync-visit"]').content;
  const $ = (id) => document.getElementById(id);

  // --- sizes and messages (the same words as the server, ui/uploads.py) ------------
  function sizeText(size) {
    if (size < 1000) return size + " bytes";
    if (size < 1000000) return Math.round(size / 1000) + " KB";
    const mb = size / 1000000;
    return (mb >= 10 || mb === Math.floor(mb) ? Math.round(mb) : mb.toFixed(1)) + " MB";
  }
  function tooLarge(name, size, limit) {
    return name + " is " + sizeText(size) + "; the page takes files up to " +
      sizeText(limit) + ". Split it, or run linksync apply " + name +
      " in a terminal, which has no size limit.";
  }

  async function send(method, url, body, type) {
    const response = await fetch(url, {
      method: method,
      headers: {
        "X-Linksync-Token": token,
        "X-Linksync-Visit": visit,
        "Content-Type": type || "application/octet-stream",
      },
      body: body,
    });
    let data = null;
    const text = await response.text();
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
    return { ok: response.ok, status: response.status, data: data };
  }

  // --- uploads -------------------------------------------------------------------------
  const section = $("upload");
  const maxBytes = Number(section.dataset.maxBytes);
  const status = $("upload-status");
  const list = $("uploads");
  const earlier = $("earlier-uploads");

  function say(text, problem) {
    status.textContent = text;
    status.classList.toggle("problem", Boolean(problem));
  }

  // The item of a file named ``name`` in a list, if any.
  function itemNamed(ul, name) {
    return Array.from(ul.children).find((li) => li.querySelector(".name").textContent === name);
  }

  function showEarlier() {
    $("earlier").hidden = earlier.children.length === 0;
  }

  function addItem(item) {
    const li = document.createElement("li");
    li.dataset.id = item.id;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = item.name;
    const meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = item.kind + ", " + item.size_text + ", received";
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove";
    remove.dataset.id = item.id;
    remove.textContent = "Remove ";
    const hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = item.name;
    remove.appendChild(hidden);
    li.append(name, meta, remove);
    // A file of the same name is replaced where it was (the server replaced it too).
    const before = itemNamed(list, item.name);
    if (before) before.replaceWith(li);
    else list.appendChild(li);
    const old = itemNamed(earlier, item.name);
    if (old) old.remove();
    showEarlier();
  }

  async function upload(file) {
    if (file.size > maxBytes) {
      say(tooLarge(file.name, file.size, maxBytes), true);
      return;
    }
    say("Sending " + file.name + "…", false);
    try {
      const answer = await send("POST", "/api/uploads?name=" + encodeURIComponent(file.name), file);
      if (answer.ok) {
        addItem(answer.data);
        say(answer.data.said, false);
        filesChanged();
      } else {
        say((answer.data && answer.data.error) || ("refused (HTTP " + answer.status + ")"), true);
      }
    } catch (e) {
      say(file.name + " could not be sent: is linksync ui still running?", true);
    }
  }

  // The steps (steps.js) listen for this: the files on the page changed.
  function filesChanged() {
    document.dispatchEvent(new CustomEvent("linksync:files", { detail: { count: list.children.length } }));
  }

  async function uploadAll(files) {
    for (const file of files) await upload(file);
  }

  const input = $("file");
  input.addEventListener("change", () => { uploadAll(Array.from(input.files)); input.value = ""; });
  const zone = $("dropzone");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    uploadAll(Array.from(e.dataTransfer.files));
  });
  async function removeItem(button) {
    const answer = await send("DELETE", "/api/uploads/" + encodeURIComponent(button.dataset.id));
    if (answer.ok || answer.status === 404) {
      const li = button.closest("li");
      const mine = li.parentElement === list;
      say(li.querySelector(".name").textContent + " removed.", false);
      li.remove();
      showEarlier();
      if (mine) filesChanged();
    } else {
      say((answer.data && answer.data.error) || "could not remove the file", true);
    }
  }

  list.addEventListener("click", (e) => {
    const button = e.target.closest("button.remove");
    if (button) removeItem(button);
  });
  // An earlier upload is read only once it is used again.
  earlier.addEventListener("click", async (e) => {
    const remove = e.target.closest("button.remove");
    if (remove) { removeItem(remove); return; }
    const use = e.target.closest("button.use");
    if (!use) return;
    const answer = await send("POST", "/api/uploads/" + encodeURIComponent(use.dataset.id) + "/use");
    if (answer.ok) {
      use.closest("li").remove();
      addItem(answer.data);
      say(answer.data.said, false);
      filesChanged();
    } else {
      say((answer.data && answer.data.error) || "could not use the file again", true);
      if (answer.status === 404) { use.closest("li").remove(); showEarlier(); }
    }
  });

  // --- the last run ------------------------------------------------------------------
  const STATES = {
    running: "Running",
    waiting: "Waiting for the rate limit",
    cancelling: "Cancelling: no new requests, waiting for those in flight",
    finished: "Finished",
    cancelled: "Cancelled",
    failed: "Failed",
    interrupted: "Interrupted: the server stopped during this run",
  };
  let source = null;

  function seconds(s) {
    if (s >= 90) return Math.round(s / 60) + " min";
    return Math.max(1, Math.round(s)) + " s";
  }

  function showRun(run) {
    $("run").hidden = false;
    $("run-kind").textContent = run.kind.charAt(0).toUpperCase() + run.kind.slice(1);
    $("run-id").textContent = "(" + run.run_id + ", started " + run.started_at + ")";
    const p = run.progress || { done: 0, total: 0, failed: 0, not_attempted: 0, wait_s: 0 };
    const bar = $("run-progress");
    bar.max = Math.max(p.total, 1);
    bar.value = p.done;
    let count = p.done + " of " + p.total + " rows";
    if (p.failed) count += ", " + p.failed + " failed";
    if (p.not_attempted) count += ", " + p.not_attempted + " not attempted";
    $("run-count").textContent = count;
    let state = STATES[run.state] || run.state;
    if (run.state === "waiting" && p.wait_s) state += ": " + seconds(p.wait_s) + " left";
    const line = $("run-state");
    line.textContent = state;
    line.dataset.state = run.state;
    let rate = "";
    if (p.rate) rate = p.rate.toFixed(1) + " rows/s";
    if (p.eta_s && run.state !== "finished") rate += ", about " + seconds(p.eta_s) + " left";
    $("run-rate").textContent = rate;
    $("run-message").textContent = p.message || "";
    $("run-summary").textContent = run.summary || run.error || "";
    const going = ["running", "waiting", "cancelling"].includes(run.state);
    const cancel = $("run-cancel");
    cancel.hidden = !going;
    cancel.disabled = run.state === "cancelling";
    cancel.dataset.runId = run.run_id;
    showFiles(run);
    document.dispatchEvent(new CustomEvent("linksync:run", { detail: run }));  // undo.js
  }

  // What each download is, in words.
  function fileWords(name) {
    if (name.includes("-annotated.")) return "your file with a short link, status and error on each row" +
      (name.endsWith(".csv") ? "" : " (and its QR code, when QR codes were asked for)");
    if (name.endsWith(".zip")) return "a QR code per short link (PNG and SVG), named by slug";
    const ext = name.slice(name.lastIndexOf(".") + 1);
    const kinds = { csv: "CSV", xlsx: "Excel", json: "JSON", jsonl: "JSON lines", md: "Markdown", xml: "JUnit XML" };
    return "results report, " + (kinds[ext] || ext) + ": every row with what happened";
  }

  function showFiles(run) {
    const files = $("run-files");
    files.replaceChildren();
    for (const name of run.files || []) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = "/runs/" + encodeURIComponent(run.run_id) + "/files/" + encodeURIComponent(name);
      a.setAttribute("download", name);
      a.textContent = name;
      const words = document.createElement("span");
      words.className = "muted";
      words.textContent = " — " + fileWords(name);
      li.append(a, words);
      files.appendChild(li);
    }
    $("run-downloads").hidden = !(run.files && run.files.length);
  }

  function follow(run) {
    showRun(run);
    if (source) source.close();
    if (!["running", "waiting", "cancelling"].includes(run.state)) return;
    source = new EventSource("/api/runs/" + encodeURIComponent(run.run_id) + "/events");
    source.addEventListener("progress", (e) => showRun(JSON.parse(e.data)));
    source.addEventListener("end", (e) => { source.close(); source = null; showRun(JSON.parse(e.data)); });
  }

  $("run-cancel").addEventListener("click", async (e) => {
    const answer = await send("POST", "/api/runs/" + encodeURIComponent(e.target.dataset.runId) + "/cancel");
    if (answer.ok) showRun(answer.data);
  });

  async function loadLastRun() {
    const response = await fetch("/api/runs/latest");
    if (response.ok) follow(await response.json());
  }
  loadLastRun();

  // What steps.js uses.
  window.linksync = { send: send, follow: follow, seconds: seconds };
})();
