// GCV console: live progress (server-sent events), the fight viewer, the phone-width menu and
// the decision form's note. No inline script:
// the pages carry their data in data- attributes and this file (served by the console) reads them.
"use strict";

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

// ---------------------------------------------------------------- live progress
function startLive(section) {
  const wf = section.dataset.wf;
  const trace = document.getElementById("trace");
  const statusText = document.getElementById("live-status");
  const stepText = document.getElementById("live-step");
  const note = document.getElementById("live-note");
  const badge = document.querySelector("#status-badge .badge");
  let shown = trace ? trace.children.length : 0;
  let lastStatus = section.dataset.status;
  // the page already shows everything up to its state's last event: stream only what follows
  const after = parseInt(section.dataset.seq, 10);
  const source = new EventSource("/api/workflows/" + encodeURIComponent(wf) + "/events?after=" +
                                 (isNaN(after) ? -1 : after));
  source.onmessage = function (msg) {
    let data;
    try { data = JSON.parse(msg.data); } catch (e) { return; }
    if (data.kind === "event") {
      const ev = data.event;
      if (ev.type === "step" && stepText && section.dataset.running === "1") stepText.textContent = "step " + ev.data.step;
      if (note) note.textContent = "event " + ev.seq + ": " + ev.type + (ev.to ? " -> " + ev.to : "");
    } else if (data.kind === "progress") {
      if (trace) {
        for (let i = shown; i < data.trace.length; i++) {
          const li = document.createElement("li");
          li.textContent = data.trace[i];
          li.className = "new";
          trace.appendChild(li);
        }
        shown = Math.max(shown, data.trace.length);
      }
      if (statusText) statusText.textContent = data.status.title;
      if (badge) {
        badge.textContent = data.status.title;
        badge.className = "badge tone-" + data.status.tone;
        badge.dataset.status = data.status.value;
      }
      if (stepText) stepText.textContent = data.status.running && data.step ? "step " + data.step.step : "";
      const meters = {"candidate runs": data.usage.candidate_runs, "model calls": data.usage.model_calls,
                      "tokens": data.usage.tokens};
      document.querySelectorAll(".meter").forEach(function (m) {
        const label = m.querySelector(".label").textContent;
        const pair = meters[label];
        if (!pair) return;
        m.querySelector("meter").value = pair[0];
        m.querySelector(".value").textContent = pair[0] + " / " + pair[1];
      });
      const changed = data.status.value !== lastStatus;
      const wasRunning = section.dataset.running === "1";
      lastStatus = data.status.value;
      section.dataset.status = data.status.value;
      section.dataset.running = data.status.running ? "1" : "0";
      if (data.status.running) {
        // the loop runs (started here or with gcv): the forms of the waiting state no longer apply
        document.querySelectorAll("[data-while-waiting]").forEach(function (el) { el.hidden = true; });
        if (note && !wasRunning) note.textContent = "running" + (data.holder ? " (" + data.holder + ")" : "");
      }
      if (changed && !data.status.running) {
        // the loop now waits for a person, or someone (here or with gcv) decided: show the forms
        // that belong to the new state (once per change, not a reload loop)
        source.close();
        window.location.reload();
      }
    } else if (data.kind === "error") {
      if (note) note.textContent = data.message;
      source.close();
    }
  };
}

// ---------------------------------------------------------------- fight viewer
function startViewer(root) {
  const wf = root.dataset.wf;
  const max = parseInt(root.dataset.max, 10) || 0;
  const slider = document.getElementById("v-tick");
  const number = document.getElementById("v-tick-n");
  const time = document.getElementById("v-time");
  const play = document.getElementById("v-play");
  const figures = Array.from(root.querySelectorAll("figure[data-side]"));
  let tick = 0;
  let timer = null;
  const STRIDE = 6;  // playback: 10 frames per second of fight

  function show(t) {
    tick = Math.max(0, Math.min(max, t | 0));
    slider.value = tick;
    number.value = tick;
    time.textContent = (tick / 60).toFixed(2) + " s";
    figures.forEach(function (fig) {
      const last = (parseInt(fig.dataset.ticks, 10) || 1) - 1;
      const img = fig.querySelector("img");
      const at = Math.min(tick, last);
      const src = "/workflows/" + encodeURIComponent(wf) + "/frames/" + fig.dataset.side + "/" + at + ".png";
      img.alt = fig.dataset.side + " at tick " + at;
      if (img.getAttribute("src") === src) return;  // this side's fight is over: its last frame stays
      img.dataset.loading = "1";
      img.onload = img.onerror = function () { img.dataset.loading = "0"; };
      img.src = src;
    });
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; play.textContent = "Play"; } }
  play.addEventListener("click", function () {
    if (timer) { stop(); return; }
    play.textContent = "Pause";
    timer = setInterval(function () {
      if (figures.some(function (f) { return f.querySelector("img").dataset.loading === "1"; })) return;
      if (tick >= max) { stop(); return; }
      show(tick + STRIDE);
    }, 100);
  });
  document.getElementById("v-back").addEventListener("click", function () { stop(); show(tick - 1); });
  document.getElementById("v-fwd").addEventListener("click", function () { stop(); show(tick + 1); });
  slider.addEventListener("input", function () { stop(); show(parseInt(slider.value, 10)); });
  number.addEventListener("change", function () { stop(); show(parseInt(number.value, 10)); });
  root.querySelectorAll("button[data-tick]").forEach(function (b) {
    b.addEventListener("click", function () { stop(); show(parseInt(b.dataset.tick, 10)); });
  });
}

// ---------------------------------------------------------------- the viewer's sides on a narrow screen
// (the CSS shows one side at a time below 800 px: the one this toggle picked; both side by side above)
function startSides(root) {
  const group = document.getElementById("v-sides");
  if (!group) return;
  const buttons = Array.from(group.querySelectorAll("button[data-side]"));
  function pick(side) {
    root.dataset.show = side;
    buttons.forEach(function (b) { b.setAttribute("aria-pressed", b.dataset.side === side ? "true" : "false"); });
  }
  buttons.forEach(function (b) { b.addEventListener("click", function () { pick(b.dataset.side); }); });
  pick(root.querySelector('figure[data-side="candidate"]') ? "candidate" : buttons[0].dataset.side);
  group.hidden = false;
}

// ---------------------------------------------------------------- the navigation on a narrow screen
function startMenu() {
  const toggle = document.getElementById("menu-toggle");
  if (!toggle) return;
  const header = toggle.closest("header");
  header.classList.add("js-menu");  // without this script the navigation simply wraps
  toggle.hidden = false;
  toggle.addEventListener("click", function () {
    const open = header.classList.toggle("open");
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  });
}

// ---------------------------------------------------------------- the decision's note
// accept and rollback need a note (the server refuses them without one); the form says so at once
function startDecide() {
  const note = document.getElementById("note");
  const radios = document.querySelectorAll('#decide input[name="decision"]');
  if (!note || !radios.length) return;
  const always = note.required;
  radios.forEach(function (r) {
    r.addEventListener("change", function () { note.required = always || r.hasAttribute("data-note-required"); });
  });
}

document.addEventListener("DOMContentLoaded", function () {
  startMenu();
  startDecide();
  const live = document.getElementById("live");
  if (live && live.dataset.final !== "1") startLive(live);
  const viewer = document.querySelector(".viewer[data-wf]");
  if (viewer) { startViewer(viewer); startSides(viewer); }
});
