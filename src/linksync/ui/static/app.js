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

  // One line of the status (a problem in red).
  function line(text, problem) {
    const span = document.createElement("span");
    span.className = problem ? "line problem" : "line";
    span.textContent = text;
    return span;
  }

  // One message, in place of the ones before.
  function say(text, problem) {
    status.replaceChildren(line(text, problem));
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

  // Send one file; what became of it, as a line of the status: [text, problem].
  async function upload(file, shown) {
    if (file.size > maxBytes) return [tooLarge(file.name, file.size, maxBytes), true];
    shown.textContent = "Sending " + file.name + "…";
    let body;
    try {
      body = await file.arrayBuffer();  // still there, as it was when chosen
    } catch (e) {
      return [file.name + " could not be read on your computer: it was moved, renamed or " +
        "changed after you chose it. Choose it again.", true];
    }
    try {
      const answer = await send("POST", "/api/uploads?name=" + encodeURIComponent(file.name), body);
      if (!answer.ok) {
        return [(answer.data && answer.data.error) || ("refused (HTTP " + answer.status + ")"), true];
      }
      addItem(answer.data);
      filesChanged();
      return [answer.data.said, false];
    } catch (e) {
      return [file.name + " could not be sent: is linksync ui still running?", true];
    }
  }

  // The steps (steps.js) listen for this: the files on the page changed.
  function filesChanged() {
    document.dispatchEvent(new CustomEvent("linksync:files", { detail: { count: list.children.length } }));
  }

  // The files of one choice or drop, one after the other: each gets its line in the
  // status, so a file refused among others is said and stays said. A folder is not
  // sent; nor is a second file of a name (the page holds one file per name: it would
  // replace the first), and both are said.
  let sending = 0;  // choices or drops still being sent: their lines stay
  async function uploadAll(dropped) {
    if (!sending) status.replaceChildren();
    sending++;
    try {
      await sendAll(dropped);
    } finally {
      sending--;
    }
  }

  async function sendAll(dropped) {
    const names = new Set();
    for (const { file, folder } of dropped) {
      const shown = line("", false);
      status.appendChild(shown);
      let said;
      if (folder) {
        said = [file.name + " is a folder: the page takes files. Open the folder and " +
          "drop (or choose) the files in it.", true];
      } else if (names.has(file.name)) {
        said = [file.name + " was not sent: another file named " + file.name + " was " +
          "chosen with it, and the page holds one file per name. Rename one to use both.", true];
      } else {
        said = await upload(file, shown);
        if (!said[1]) names.add(file.name);  // kept: a refused one leaves the name free
      }
      const done = line(said[0], said[1]);
      if (shown.isConnected) shown.replaceWith(done);
      else status.appendChild(done);  // the status was written over meanwhile (a Remove)
    }
  }

  const input = $("file");
  input.addEventListener("change", () => {
    uploadAll(Array.from(input.files, (file) => ({ file: file, folder: false })));
    input.value = "";
  });
  const zone = $("dropzone");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    // A folder dropped comes as a file of its name: its entry tells it (read now, while
    // the drop's items can be read).
    const dropped = [];
    for (const item of Array.from(e.dataTransfer.items || [])) {
      if (item.kind !== "file") continue;
      const entry = item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
      const file = item.getAsFile();
      if (entry && entry.isDirectory) dropped.push({ file: { name: entry.name }, folder: true });
      else if (file) dropped.push({ file: file, folder: false });
    }
    if (!dropped.length) {
      for (const file of Array.from(e.dataTransfer.files)) dropped.push({ file: file, folder: false });
    }
    if (!dropped.length) {  // a link or a text dragged from another window
      say("Nothing was read: only files can be dropped here (an online sheet: download " +
        "it as .xlsx or .csv first).", true);
      return;
    }
    uploadAll(dropped);
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
  let lastShown = null;  // the run on the page (showRun)

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
    lastShown = run;  // for undo.js, whose script may run after the first run is shown
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
  window.linksync = { send: send, follow: follow, seconds: seconds, shown: () => lastShown };
})();
