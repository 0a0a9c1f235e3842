// linksync page, the steps after the upload: columns, check, plan, apply.
// The server renders each step's HTML (autoescaped templates); this script sends the
// user's choices, puts the fragments in place, filters the problem table and starts
// the run. Plain script, no build step.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const page = window.linksync;
  let mapping = {};  // header -> field, as --map HEADER=FIELD
  let checking = 0;  // the answer of the latest check request wins
  let planned = 0;  // a plan is shown only when nothing changed since it was asked for

  // The password of encrypted workbooks: in the box of this tab only (never stored by
  // the browser), sent with each request that reads the files, kept by no server.
  function withPassword(body) {
    const box = $("workbook-password");
    if (!$("unlock").hidden && box.value) body.password = box.value;
    return body;
  }

  function choices() {
    const dates = $("opt-date").value;
    const utmCase = $("opt-utm-case");
    return {
      mapping: mapping,
      mode: $("opt-mode").value,
      default_domain: $("opt-domain").value,
      scope: $("opt-scope").value,
      fix_invisible: $("opt-fix").checked,
      date_format: dates === "pattern" ? $("opt-date-pattern").value : dates,
      timezone: $("opt-timezone").value,
      encoding: $("opt-encoding").value,
      empty_values: $("opt-empty").value,
      fix_utm_case: Boolean(utmCase && utmCase.checked),
      check_destinations: $("opt-dest").checked,
      ai_slug: $("opt-ai-slug").checked,
      ai_og: $("opt-ai-og").checked,
      qr: $("opt-qr").checked,
    };
  }
  // What is read changes with these: check again. The other options change the plan.
  const READING = ["opt-fix", "opt-domain", "opt-dest", "opt-date", "opt-date-pattern",
    "opt-timezone", "opt-encoding", "opt-empty", "opt-utm-case"];

  async function post(url, body) {
    return page.send("POST", url, JSON.stringify(body), "application/json");
  }

  function show(ids, visible) {
    for (const id of ids) $(id).hidden = !visible;
  }

  function fail(where, answer) {
    const p = document.createElement("p");
    p.className = "problem";
    p.setAttribute("role", "alert");
    p.textContent = (answer.data && answer.data.error) || ("refused (HTTP " + answer.status + ")");
    $(where).replaceChildren(p);
  }

  // --- columns and check -------------------------------------------------------------
  async function check() {
    const mine = ++checking;
    clearPlan("");
    $("check-body").textContent = "Checking…";
    show(["columns", "check", "plan"], true);
    const answer = await post("/api/check", withPassword(choices()));
    if (mine !== checking) return;  // a newer check is on its way
    if (!answer.ok) {
      $("columns-body").replaceChildren();
      fail("check-body", answer);
      return;
    }
    showUnlock(answer.data.data);
    $("columns-body").innerHTML = answer.data.html.columns;
    $("check-body").innerHTML = answer.data.html.check;
    $("mapping-reset").hidden = Object.keys(mapping).length === 0;
    filter();
  }

  // The password box: shown while a file of the page is an encrypted workbook.
  function showUnlock(view) {
    const names = view.encrypted || [];
    const form = $("unlock");
    const wasHidden = form.hidden;
    form.hidden = names.length === 0;
    if (form.hidden) return;
    $("unlock-names").textContent = names.join(", ");
    const open = !view.error;
    $("unlock-status").textContent = open ? "Opened: " + names.join(", ") + "." : "";
    if (!open && wasHidden) $("workbook-password").focus();
  }
  $("unlock").addEventListener("submit", (e) => { e.preventDefault(); check(); });

  $("columns-body").addEventListener("change", (e) => {
    const select = e.target.closest("select.mapping");
    if (!select || !select.value) return;
    mapping[select.dataset.header] = select.value;
    check();
  });
  $("mapping-reset").addEventListener("click", () => { mapping = {}; check(); });

  // --- the problem filter ------------------------------------------------------------
  function filter() {
    const table = $("problems");
    if (!table) return;
    const constant = $("filter-constant").value;
    const sheet = $("filter-sheet").value;
    const errorsOnly = $("filter-errors").checked;
    let shown = 0;
    const rows = table.tBodies[0].rows;
    for (const row of rows) {
      const keep = (!constant || row.dataset.constant === constant) &&
        (!sheet || row.dataset.sheet === sheet) &&
        (!errorsOnly || row.dataset.severity === "error");
      row.hidden = !keep;
      if (keep) shown++;
    }
    $("filter-count").textContent = shown + " of " + rows.length + " problems shown";
  }
  $("check-body").addEventListener("change", (e) => {
    if (e.target.closest(".filters")) filter();
  });

  // --- plan and apply ----------------------------------------------------------------
  const CHANGED = "Your files, columns or options changed while the plan was made: show the plan again.";
  // The plan shown, or asked for, no longer holds (files, columns or options changed):
  // its answer, when it comes, is not shown (it would not be the plan of the page).
  function clearPlan(text) {
    planned++;
    $("plan-body").replaceChildren();
    $("plan-status").textContent = text;
  }

  $("options").addEventListener("change", (e) => {
    if (e.target.id === "opt-date") $("opt-date-pattern-box").hidden = e.target.value !== "pattern";
    if (e.target.id === "opt-date" && e.target.value === "pattern") return;  // the pattern next
    if (READING.includes(e.target.id)) check();
    else clearPlan("Options changed: show the plan again.");
  });

  $("options").addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = $("plan-button");
    button.disabled = true;
    clearPlan("Reading the workspace…");
    const mine = planned;
    try {
      const answer = await post("/api/plan", withPassword(choices()));
      if (mine !== planned) {  // changed meanwhile: not the plan of the page
        if (!$("plan-status").textContent) $("plan-status").textContent = CHANGED;
        return;
      }
      if (!answer.ok) {
        $("plan-status").textContent = "";
        fail("plan-body", answer);
        return;
      }
      $("plan-status").textContent = "Plan ready.";
      $("plan-body").innerHTML = answer.data.html.plan;
    } finally {
      button.disabled = false;
    }
  });

  $("plan-body").addEventListener("click", async (e) => {
    const button = e.target.closest("#apply");
    if (!button) return;
    button.disabled = true;
    const force = $("force");
    const answer = await post("/api/apply", withPassword({
      plan_id: button.dataset.planId,
      force: Boolean(force && force.checked),
    }));
    if (!answer.ok) {
      button.disabled = false;
      $("plan-status").textContent = (answer.data && answer.data.error) || "refused";
      return;
    }
    clearPlan("Applying: follow the run below. You may close this tab; the run goes on.");
    page.follow(answer.data);
    $("run").scrollIntoView({ block: "start" });
  });

  // --- files ---------------------------------------------------------------------------
  document.addEventListener("linksync:files", (e) => {
    if (e.detail.count) check();
    else { show(["columns", "check", "plan"], false); clearPlan(""); }
  });
})();
