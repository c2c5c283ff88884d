"""The replay page: one HTML document with its style, script and the game's frames inline (no network).

``TEMPLATE`` is a ``string.Template``: ``title``, ``heading``, ``meta`` (HTML-escaped by the caller) and
``data`` (JSON with ``<``, ``>`` and ``&`` escaped, so no text in it can close the script element) are
filled in by ``html.py``, with ``style`` and ``script`` from here and ``board``, the drawing script the
viewer shares with the server's ``/play`` page (``board.js`` beside this file, read by :func:`board_script`).
"""

from importlib.resources import files


def board_script() -> str:
    """The shared board script (``naval_tactics/viewer/board.js``), inlined so a replay page fetches nothing."""
    return files("naval_tactics.viewer").joinpath("board.js").read_text(encoding="utf-8").replace("</", "<\\/")


STYLE = """
:root { --ink: #1d2733; --muted: #6b7785; --paper: #f6f4ef; --line: #d9d4c7; --hi: #fff3c4; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 "DejaVu Sans", Verdana, sans-serif; color: var(--ink); background: var(--paper); }
header { padding: 10px 18px; border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0 0 2px; }
.meta { color: var(--muted); margin: 0; }
main { display: flex; gap: 16px; padding: 12px 18px; align-items: flex-start; flex-wrap: wrap; }
#view { flex: 0 1 auto; max-width: 1000px; }
#board { display: inline-block; line-height: 0; border: 1px solid var(--line); background: #fff; max-width: 100%; }
#board svg { max-width: 100%; height: auto; }
#controls { display: flex; gap: 6px; align-items: center; margin: 8px 0 4px; flex-wrap: wrap; }
#controls button { font: inherit; min-width: 40px; padding: 3px 8px; cursor: pointer; }
#slider { flex: 1 1 260px; }
#counter { color: var(--muted); min-width: 150px; }
#caption { margin: 2px 0; min-height: 1.4em; }
#result { margin: 6px 0; padding: 6px 10px; background: var(--hi); border: 1px solid #f2b705; font-weight: bold; }
#log-wrap { flex: 1 1 300px; max-width: 460px; }
#log-wrap h2 { font-size: 15px; margin: 0 0 6px; }
#log { list-style: none; margin: 0; padding: 0; max-height: 640px; overflow-y: auto; border: 1px solid var(--line);
       background: #fff; }
#log li { padding: 4px 8px; border-bottom: 1px solid #eee; cursor: pointer; }
#log li.future { display: none; }
#log li.current { background: var(--hi); }
#log li .who { font-weight: bold; }
#log li ul { margin: 2px 0 0 14px; padding: 0; color: #333; }
#log li li { border: 0; padding: 1px 0; cursor: inherit; }
#log li.past ul { color: var(--muted); }
#log .dice { color: #5a4a1a; font-size: 12px; }
#log .dice::before { content: "dice: "; font-weight: bold; }
"""

SCRIPT = """
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const frames = data.frames, last = frames.length - 1;
  const board = document.getElementById("board"), slider = document.getElementById("slider");
  const counter = document.getElementById("counter"), caption = document.getElementById("caption");
  const result = document.getElementById("result"), log = document.getElementById("log");
  const play = document.getElementById("play"), speed = document.getElementById("speed");
  let current = -1, timer = null;

  function describe(frame) {
    return NavalBoard.describeMove(frame.actor, frame.move);
  }

  const items = frames.map(function (frame, k) {
    const li = NavalBoard.logItem((k === 0 ? "" : k + ". ") + describe(frame), frame.events, null);
    li.addEventListener("click", function () { stop(); show(k); });
    log.appendChild(li);
    return li;
  });

  function show(k) {
    k = Math.max(0, Math.min(last, k));
    if (k === current) return;
    current = k;
    const frame = frames[k];
    NavalBoard.show(board, data.pictures[frame.picture].map(function (i) { return data.parts[i]; }).join(""));
    board.dataset.frame = String(k);
    slider.value = String(k);
    counter.textContent = "decision " + k + " / " + last + " \\u00b7 round " + frame.round;
    caption.textContent = k === 0 ? "Before the first decision." : "Decision " + k + ": " + describe(frame);
    items.forEach(function (li, j) {
      li.className = j < k ? "past" : j === k ? "current" : "future";
    });
    items[k].scrollIntoView({block: "nearest"});
    result.hidden = k !== last;
    if (k === last) stop();
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    play.textContent = "\\u25b6 play";
  }

  function start() {
    if (current === last) show(0);
    play.textContent = "\\u23f8 pause";
    timer = setInterval(function () { show(current + 1); }, Number(speed.value));
  }

  slider.max = String(last);
  slider.addEventListener("input", function () { stop(); show(Number(slider.value)); });
  document.getElementById("first").addEventListener("click", function () { stop(); show(0); });
  document.getElementById("prev").addEventListener("click", function () { stop(); show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { stop(); show(current + 1); });
  document.getElementById("last").addEventListener("click", function () { stop(); show(last); });
  play.addEventListener("click", function () { if (timer === null) start(); else stop(); });
  speed.addEventListener("change", function () { if (timer !== null) { stop(); start(); } });
  document.addEventListener("keydown", function (event) {
    if (event.target === slider) return;
    const keys = {ArrowLeft: -1, ArrowRight: 1};
    if (event.key in keys) { stop(); show(current + keys[event.key]); event.preventDefault(); }
    else if (event.key === "Home") { stop(); show(0); }
    else if (event.key === "End") { stop(); show(last); }
    else if (event.key === " ") { play.click(); event.preventDefault(); }
  });
  result.textContent = "Result: " + data.result;
  show(0);
})();
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${style}</style>
</head>
<body>
<header>
<h1>${heading}</h1>
<p class="meta">${meta}</p>
</header>
<main>
<section id="view">
<div id="board" data-frame=""></div>
<div id="controls">
<button id="first" title="first decision (Home)">|&#x25c0;</button>
<button id="prev" title="previous decision (&#x2190;)">&#x25c0;</button>
<button id="play" title="play or pause (space)">&#x25b6; play</button>
<button id="next" title="next decision (&#x2192;)">&#x25b6;</button>
<button id="last" title="last decision (End)">&#x25b6;|</button>
<input id="slider" type="range" min="0" max="0" step="1" value="0" aria-label="decision">
<select id="speed" aria-label="speed">
<option value="1500">slow</option><option value="700" selected>normal</option><option value="250">fast</option>
</select>
<span id="counter"></span>
</div>
<p id="caption"></p>
<p id="result" hidden></p>
</section>
<aside id="log-wrap">
<h2>Decisions and events</h2>
<ol id="log"></ol>
</aside>
</main>
<script type="application/json" id="replay-data">${data}</script>
<script>${board}</script>
<script>${script}</script>
</body>
</html>
"""
