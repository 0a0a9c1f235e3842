// linksync page: "Undo this run" on a finished run. The server shows the reverse plan
// (ui/undo.py, an autoescaped template) before anything is sent; the confirm runs that
// plan as a run of the page, followed like an apply. Plain script, no build step.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const page = window.linksync;
  const UNDOABLE = ["apply", "undo"];
  // Over, and may have written: an interrupted run (the server stopped during it) too,
  // its journal holds what it sent. (A run with no journal is said so by the server.)
  const OVER = ["finished", "cancelled", "interrupted"];
  let shownFor = null;  // the run whose undo plan is on the page

  function close() {
    shownFor = null;
    $("undo").hidden = true;
    $("undo-body").replaceChildren();
    $("undo-status").textContent = "";
  }

  function onRun(run) {
    const button = $("run-undo");
    button.hidden = !(UNDOABLE.includes(run.kind) && OVER.includes(run.state));
    button.dataset.runId = run.run_id;
    if (shownFor !== run.run_id) close();
  }
  document.addEventListener("linksync:run", (e) => onRun(e.detail));
  // The page's last run may have been shown before this script ran (scripts and the
  // first answer of the server race): take it now.
  if (page.shown && page.shown()) onRun(page.shown());

  $("run-undo").addEventListener("click", async (e) => {
    const runId = e.target.dataset.runId;
    e.target.disabled = true;
    shownFor = runId;
    $("undo").hidden = false;
    $("undo-body").replaceChildren();
    $("undo-status").textContent = "Reading the run's journal and the links it wrote…";
    try {
      const answer = await page.send("POST", "/api/runs/" + encodeURIComponent(runId) + "/undo/plan");
      if (!answer.ok) {
        $("undo-status").textContent = (answer.data && answer.data.error) || "refused";
        return;
      }
      $("undo-status").textContent = "What the undo will do: nothing is sent until you confirm.";
      $("undo-body").innerHTML = answer.data.html;
      $("undo").scrollIntoView({ block: "start" });
    } finally {
      e.target.disabled = false;
    }
  });

  $("undo-body").addEventListener("click", async (e) => {
    if (e.target.closest("#undo-close")) { close(); return; }
    const button = e.target.closest("#undo-confirm");
    if (!button) return;
    button.disabled = true;
    const answer = await page.send("POST", "/api/runs/" + encodeURIComponent(button.dataset.runId) + "/undo",
      JSON.stringify({ plan_id: button.dataset.planId }), "application/json");
    if (!answer.ok) {
      button.disabled = false;
      $("undo-status").textContent = (answer.data && answer.data.error) || "refused";
      return;
    }
    close();
    page.follow(answer.data);
  });
})();
