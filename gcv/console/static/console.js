// GCV console: live progress (server-sent events), the fight viewer, the phone-width menu and
// the decision form's note. No inline script:
// the pages carry their data in data- attributes and this file (served by the console) reads them.
// Nor any English of its own: every word it writes comes from the page's #console-words block,
// in the page's language (gcv/console/templates/base.html; docs/console.md "Languages").
"use strict";

const WORDS = (function () {
  const block = document.getElementById("console-words");
  try { return block ? JSON.parse(block.textContent) : {}; } catch (e) { return {}; }
})();

// a page's word with its {name} placeholders filled in (the key itself when the page has none)
function say(key, values) {
  const text = typeof WORDS[key] === "string" ? WORDS[key] : key;
  return text.replace(/\{(\w+)\}/g, function (all, name) {
    return values && values[name] !== undefined ? String(values[name]) : all;
  });
}

// the live stream's status title is the API's (English): the page's own title for the value
function statusTitle(status) {
  return (WORDS.statuses && WORDS.statuses[status.value]) || status.title;
}

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

// ---------------------------------------------------------------- live progress
function startLive(section) {
  const wf = section.dataset.wf;
  const trace = document.getElementById("trace");
  const history = document.querySelector("#history tbody");
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
      if (ev.type === "step" && stepText && section.dataset.running === "1") stepText.textContent = say("step", {n: ev.data.step});
      if (note) note.textContent = say("event", {seq: ev.seq, type: ev.type}) + (ev.to ? " -> " + ev.to : "");
    } else if (data.kind === "progress") {
      if (trace) {
        for (let i = shown; i < data.trace.length; i++) {
          const li = document.createElement("li");
          li.textContent = (data.trace_words || data.trace)[i];
          li.className = "new";
          trace.appendChild(li);
        }
        shown = Math.max(shown, data.trace.length);
      }
      if (history && data.history) showHistory(history, data.history);
      if (statusText) statusText.textContent = statusTitle(data.status);
      if (badge) {
        badge.textContent = statusTitle(data.status);
        badge.className = "badge tone-" + data.status.tone;
        badge.dataset.status = data.status.value;
      }
      if (stepText) stepText.textContent = data.status.running && data.step ? say("step", {n: data.step.step}) : "";
      const meters = {"candidate_runs": data.usage.candidate_runs, "model_calls": data.usage.model_calls,
                      "tokens": data.usage.tokens};
      document.querySelectorAll(".meter[data-key]").forEach(function (m) {
        const pair = meters[m.dataset.key];
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
        if (note && !wasRunning) note.textContent = data.holder ? say("running_in", {holder: data.holder}) : say("running");
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

// a history row's words as the page words them (gcv/console/rendering.py step_words, after
// gcv/workflow/history.py step_label): a status's title, or the step's words by its activity key
function stepWords(h) {
  const w = WORDS.history || {};
  const fill = function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (all, name) { return values[name] !== undefined ? values[name] : all; });
  };
  if (h.kind === "status") return (WORDS.statuses && WORDS.statuses[h.key]) || h.label;
  const i = h.key.indexOf(":"), head = i < 0 ? h.key : h.key.slice(0, i), rest = i < 0 ? "" : h.key.slice(i + 1);
  if (head === "requirement" && w.requirement) return rest ? fill(w.requirement_n, {answer: rest}) : w.requirement;
  if (head === "run" && rest === "baseline" && w.baseline) return w.baseline;
  if (head === "run" && rest.indexOf("candidate:") === 0 && w.candidate) return fill(w.candidate, {number: rest.slice(10)});
  if (head === "review" && w.review) return rest ? fill(w.review_n, {round: rest}) : w.review;
  if (head === "population" && w.population) return rest ? fill(w.population_n, {which: rest}) : w.population;
  return h.label;
}

// seconds as gcv/workflow/history.py duration_words says them, in the page's units
function durationWords(seconds) {
  const u = (WORDS.history && WORDS.history.units) || {s: "s", min: "min", h: "h", d: "d"};
  const two = function (n) { return String(n).padStart(2, "0"); };
  if (seconds < 60) return seconds.toFixed(2) + " " + u.s;
  const whole = Math.floor(seconds);
  if (whole < 3600) return Math.floor(whole / 60) + " " + u.min + " " + two(whole % 60) + " " + u.s;
  if (whole < 86400) return Math.floor(whole / 3600) + " " + u.h + " " + two(Math.floor(whole % 3600 / 60)) + " " + u.min;
  return Math.floor(whole / 86400) + " " + u.d + " " + two(Math.floor(whole % 86400 / 3600)) + " " + u.h;
}

// the history table (the server's rows, gcv/workflow/history.py): redrawn as the steps arrive
function showHistory(body, rows) {
  const cell = function (tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  };
  const fresh = document.createDocumentFragment();
  rows.forEach(function (h) {
    const tr = document.createElement("tr");
    tr.dataset.seq = h.seq;
    tr.className = h.kind;
    const first = cell(tr, stepWords(h));
    if (h.kind === "step") {
      const key = document.createElement("span");
      key.className = "muted small mono";
      key.textContent = h.key;
      first.appendChild(document.createTextNode(" "));
      first.appendChild(key);
    }
    h.lines.forEach(function (line) {
      const div = document.createElement("div");
      div.className = "muted small";
      div.setAttribute("translate", "no");  // the loop's recorded line, not the page's words
      div.textContent = line;
      first.appendChild(div);
    });
    cell(tr, h.start_utc, "mono small nowrap");
    cell(tr, typeof h.offset_seconds === "number" ? "+" + durationWords(h.offset_seconds) : h.offset, "num");
    cell(tr, typeof h.duration_seconds === "number" ? durationWords(h.duration_seconds)
                                                    : (h.duration_seconds === null ? "\u2014" : h.duration), "num duration");
    fresh.appendChild(tr);
  });
  body.replaceChildren(fresh);
}

// ---------------------------------------------------------------- fight viewer
// Each side's run comes as JSON (/workflows/WF/positions/SIDE.json, gcv/console/viewer.py): the
// player per tick and each bullet as (spawn, end, vx, vy, phase), at boss + v * (tick - spawn): the
// simulator's own integers. The canvas draws it as gcv.simio.render draws a frame, at the fight's
// tick rate times the chosen speed (requestAnimationFrame; the tick shown is the one the clock has
// reached, so a slow machine drops frames instead of slowing the fight down).
const HIT_COLOUR = "#ff4646", HIT_BULLET = "#ffffff", GRID = "#22273e", ARENA = "#181c2e", BACKGROUND = "#0e101c",
      TEXT = "#e2e8f0", BOSS = "#ec4899", PLAYER = "#60e6a0", PLAYER_INVULNERABLE = "#fafafa", HUD = 30;
const MARK_TICKS = 30;  // how long the hit marker stays where the hit was (half a second at 60 Hz)

function drawFight(canvas, data, tick, byBullet) {
  const ppu = data.draw.px_per_unit, hw = data.arena.half_width, hh = data.arena.half_height;
  const width = Math.floor(2 * hw * ppu / 65536), height = Math.floor(2 * hh * ppu / 65536);
  if (canvas.width !== width || canvas.height !== height + HUD) { canvas.width = width; canvas.height = height + HUD; }
  const ctx = canvas.getContext("2d");
  const px = (x) => Math.floor((x + hw) * ppu / 65536), py = (y) => HUD + Math.floor((hh - y) * ppu / 65536);
  const disc = (x, y, r, fill, stroke, lw) => {
    ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI);
    if (fill) { ctx.fillStyle = fill; ctx.fill(); }
    if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = lw || 1; ctx.stroke(); }
  };
  ctx.fillStyle = BACKGROUND; ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = ARENA; ctx.fillRect(0, HUD, width, height);
  ctx.strokeStyle = GRID; ctx.lineWidth = 1; ctx.beginPath();
  for (let gx = 0; gx < width; gx += 2 * ppu) { ctx.moveTo(gx + 0.5, HUD); ctx.lineTo(gx + 0.5, HUD + height); }
  for (let gy = HUD; gy < HUD + height; gy += 2 * ppu) { ctx.moveTo(0, gy + 0.5); ctx.lineTo(width, gy + 0.5); }
  ctx.stroke();
  disc(px(data.boss.x), py(data.boss.y), 14, BOSS);
  const b = data.bullets, colours = data.draw.phase_colors, bx = data.boss.x, by = data.boss.y;
  let alive = 0;
  const marked = [];
  for (let i = 0; i < b.spawn.length; i++) {
    const s = b.spawn[i];
    if (s > tick) break;  // creation order is spawn order
    if (tick >= b.end[i]) continue;
    alive++;
    const x = px(bx + b.vx[i] * (tick - s)), y = py(by + b.vy[i] * (tick - s));
    if (byBullet[i] !== undefined) { marked.push([x, y]); continue; }
    disc(x, y, 4, colours[b.phase[i] % colours.length]);
  }
  // the bullets that will hit: white with a red ring, drawn over the others
  marked.forEach(function (m) { disc(m[0], m[1], 4, HIT_BULLET, HIT_COLOUR, 2); });
  const t = Math.min(tick, data.ticks - 1);
  const x = px(data.player.x[t]), y = py(data.player.y[t]);
  const invulnerable = data.invulnerable.some(function (r) { return r[0] <= t && t < r[1]; });
  disc(x, y, Math.floor(data.radii.graze * ppu / 65536), null, GRID, 1);
  ctx.fillStyle = invulnerable ? PLAYER_INVULNERABLE : PLAYER;
  ctx.beginPath(); ctx.moveTo(x, y - 16); ctx.lineTo(x - 12, y + 12); ctx.lineTo(x + 12, y + 12); ctx.closePath(); ctx.fill();
  const hit = data.hits.find(function (h) { return h.tick === t; });
  disc(x, y, Math.max(2, Math.floor(data.radii.hit * ppu / 65536)), null, hit ? HIT_COLOUR : TEXT, 2);
  // the hit: the bullet that touched the player where it touched (it is gone from this tick on),
  // and a marker that stays there for half a second so the eye can find it
  data.hits.forEach(function (h) {
    if (t < h.tick || t >= h.tick + MARK_TICKS) return;
    const fade = 1 - (t - h.tick) / MARK_TICKS;
    ctx.globalAlpha = Math.max(0.2, fade);
    h.x.forEach(function (hx, k) {
      const cx = px(hx), cy = py(h.y[k]);
      if (t === h.tick) disc(cx, cy, 4, HIT_BULLET);
      disc(cx, cy, 9 + (t - h.tick) / 3, null, HIT_COLOUR, 3);
    });
    ctx.globalAlpha = 1;
    if (t === h.tick) disc(x, y, 16, null, HIT_COLOUR, 3);
  });
  let phase = "";
  data.phases.forEach(function (p) { if (p.start_tick <= t) phase = p.phase_id; });
  const sec = Math.floor(t / data.tick_hz), hund = Math.floor((t % data.tick_hz) * 100 / data.tick_hz);
  ctx.fillStyle = TEXT; ctx.font = "14px sans-serif"; ctx.textBaseline = "top";
  ctx.fillText(say("hud", {time: sec + "." + String(hund).padStart(2, "0"), tick: t, phase: phase, alive: alive,
                           boss: data.boss_health[t]}) + (hit ? "  " + say("hud_hit") : ""), 8, 7);
}

function startViewer(root) {
  const wf = root.dataset.wf;
  const max = parseInt(root.dataset.max, 10) || 0;
  const hz = parseInt(root.dataset.hz, 10) || 60;
  const slider = document.getElementById("v-tick");
  const number = document.getElementById("v-tick-n");
  const time = document.getElementById("v-time");
  const play = document.getElementById("v-play");
  const speed = document.getElementById("v-speed");
  const figures = Array.from(root.querySelectorAll("figure[data-side]"));
  const runs = {};
  let tick = 0;
  let playing = false, anchorTick = 0, anchorTime = 0, frame = 0;

  function rate() { return parseFloat(speed.value) || 1; }
  function show(t) {
    tick = Math.max(0, Math.min(max, t | 0));
    slider.value = tick;
    number.value = tick;
    time.textContent = say("seconds", {seconds: (tick / hz).toFixed(2)});
    root.dataset.tick = tick;
    figures.forEach(function (fig) {
      const data = runs[fig.dataset.side];
      if (!data) return;
      const at = Math.min(tick, data.ticks - 1);
      const canvas = fig.querySelector("canvas");
      if (canvas.dataset.tick === String(at)) return;  // this side's fight is over: its last frame stays
      drawFight(canvas, data, at, data.byBullet);
      canvas.dataset.tick = at;
      canvas.setAttribute("aria-label", say("at_tick", {side: fig.dataset.sideName || fig.dataset.side, tick: at}));
    });
  }
  function anchor() { anchorTick = tick; anchorTime = performance.now(); }
  function loop(now) {
    if (!playing) return;
    const t = anchorTick + Math.floor((now - anchorTime) / 1000 * hz * rate());
    if (t >= max) { show(max); stop(); return; }
    if (t !== tick) show(t);
    frame = requestAnimationFrame(loop);
  }
  function stop() {
    playing = false; cancelAnimationFrame(frame); play.textContent = say("play"); root.dataset.playing = "0";
  }
  function start() {
    if (tick >= max) show(0);
    playing = true; play.textContent = say("pause"); root.dataset.playing = "1"; anchor();
    frame = requestAnimationFrame(loop);
  }
  play.addEventListener("click", function () { if (playing) stop(); else start(); });
  speed.addEventListener("change", function () { if (playing) anchor(); root.dataset.speed = rate(); });
  document.getElementById("v-back").addEventListener("click", function () { stop(); show(tick - 1); });
  document.getElementById("v-fwd").addEventListener("click", function () { stop(); show(tick + 1); });
  slider.addEventListener("input", function () { stop(); show(parseInt(slider.value, 10)); });
  number.addEventListener("change", function () { stop(); show(parseInt(number.value, 10)); });
  function bindTicks() {
    root.querySelectorAll("button[data-tick]").forEach(function (b) {
      if (b.dataset.bound) return;
      b.dataset.bound = "1";
      b.addEventListener("click", function () { stop(); show(parseInt(b.dataset.tick, 10)); });
    });
    root.querySelectorAll(".marks .mark").forEach(function (m) {
      m.style.left = (100 * parseInt(m.dataset.tick, 10) / (max || 1)) + "%";
    });
  }
  // one run given by its address (a batch row, data-src): its hits and phases come with its JSON
  function listRun(data) {
    const list = document.getElementById("v-hits"), marks = root.querySelector(".marks");
    if (!list) return;
    const el = function (tag, cls, tick, text) {
      const e = document.createElement(tag); e.className = cls; e.dataset.tick = tick; e.textContent = text; return e;
    };
    const label = function (text) { const s = document.createElement("span"); s.className = "muted small"; s.textContent = text; return s; };
    list.replaceChildren(label(say("hits") + " "));
    data.hit_ticks.forEach(function (t) {
      const b = el("button", "hit", t, t + " (" + say("seconds", {seconds: (t / hz).toFixed(2)}) + ")"); b.type = "button"; list.appendChild(b);
      if (marks) { const m = el("span", "mark", t, ""); m.title = say("hit_at", {tick: t}); marks.appendChild(m); }
    });
    if (!data.hit_ticks.length) list.appendChild(label(say("none") + " "));
    list.appendChild(label(" " + say("phases") + " "));
    data.phases.forEach(function (p) { const b = el("button", "phase", p.start_tick, p.phase_id); b.type = "button"; list.appendChild(b); });
    bindTicks();
  }
  bindTicks();
  const note = document.getElementById("v-note");
  Promise.all(figures.map(function (fig) {
    const side = fig.dataset.side;
    const url = root.dataset.src || ("/workflows/" + encodeURIComponent(wf) + "/positions/" + side + ".json");
    return fetch(url, {credentials: "same-origin"})
      .then(function (r) {
        if (!r.ok) return r.json().then(function (b) { throw new Error(b.error || ("HTTP " + r.status)); },
                                        function () { throw new Error(side + ": HTTP " + r.status); });
        return r.json();
      })
      .then(function (data) {
        data.byBullet = {};
        data.hits.forEach(function (h) { h.bullets.forEach(function (i) { data.byBullet[i] = h.tick; }); });
        runs[side] = data;
        if (root.dataset.src) listRun(data);
      });
  })).then(function () {
    root.dataset.ready = "1";
    [play, speed, slider, number].forEach(function (el) { el.disabled = false; });
    if (note) note.textContent = "";
    show(tick);
  }).catch(function (err) {
    root.dataset.ready = "error";
    if (note) note.textContent = say("not_loaded", {error: err.message});
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
  const viewer = document.querySelector(".viewer[data-wf], .viewer[data-src]");
  if (viewer) { startViewer(viewer); startSides(viewer); }
});
