/* The /play page: a client of the public /v1 routes of the captain server (docs/apps.md), nothing else.
   Set-up -> POST /v1/games; each decision: GET /v1/games/{id}/options (the labels allowed now, explained),
   POST /v1/games/{id}/moves (the person) or /captain-moves (a captain); the board is the rules' own picture
   (POST /v1/rulesets/{id}/picture), a hovered move is previewed with POST /v1/rulesets/{id}/preview, and the
   replay comes from POST /v1/replays (and /v1/replays/page for the viewer). */
(function () {
  "use strict";
  const $ = function (id) { return document.getElementById(id); };
  const board = $("board");

  /** Components whose options move a ship: hovering one lays the ship where it would end. */
  const MOVEMENT = /^(maneuver|escape_maneuver|speed|turn_\d+|facing|propulsion)$/;
  const GROUP_OVER = 12;        // more options than this: grouped (maneuvers by distance, then direction)
  /** The label that takes a ship out of the battle of its own will (Pantheon's Fair Escape): asked to confirm. */
  const ESCAPE = "fair_escape";
  /** The label that goes on with the turn when a ship could escape instead. */
  const PROCEED = "proceed";

  let rulesets = {};            // id -> RulesetInfo
  let game = null;              // the last GameView
  let setup = null;             // what the person chose: ruleset, scenario, mode, side, captains, pace
  let decisions = [];           // [{seat, action}] for the replay
  let pending = null;           // the person's decision being made: {seat, options, selected, active}
  let paused = false, stepOnce = false, timer = null, generation = 0;
  let busy = false;             // a captain's move is on its way: pause, play and step wait for it
  const previews = new Map();   // preview cache of this decision: move JSON -> Preview

  // ------------------------------------------------------------------ HTTP
  async function api(method, path, body, as) {
    const init = {method: method, headers: {}};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    if (!response.ok) {
      let message = response.status + " " + response.statusText;
      try { message = (await response.json()).error.message; } catch (ignored) { /* not our JSON */ }
      throw new Error(method + " " + path + ": " + message);
    }
    if (as === "text") return response.text();
    if (as === "blob") return response.blob();
    if (response.status === 204) return null;
    return response.json();
  }

  function fail(error) {
    const box = $("error");
    box.textContent = "Something went wrong: " + error.message;
    box.hidden = false;
  }

  function status(text) { $("status").textContent = text; }

  // ------------------------------------------------------------------ set-up
  function fillSelect(select, items, chosen) {
    select.innerHTML = "";
    items.forEach(function (item) {
      const option = document.createElement("option");
      option.value = item.value;
      option.textContent = item.text;
      if (item.title) option.title = item.title;
      if (item.value === chosen) option.selected = true;
      select.appendChild(option);
    });
  }

  function captainItems(info) {
    return info.captains.map(function (c) {
      return {value: c.name, text: c.name + " (" + c.kind + ")", title: c.description};
    });
  }

  function preferred(info, names) {
    const have = info.captains.map(function (c) { return c.name; });
    return names.find(function (n) { return have.includes(n); }) || have[0];
  }

  async function onRuleset() {
    const info = rulesets[$("ruleset").value];
    fillSelect($("scenario"), info.scenarios.map(function (s) { return {value: s, text: s.replace(/_/g, " ")}; }),
               info.default_scenario);
    fillSelect($("captain"), captainItems(info), preferred(info, ["normal", "gunner", "random"]));
    fillSelect($("captain2"), captainItems(info), preferred(info, ["easy", "rammer", "random"]));
    aboutCaptain();
    await onScenario();
  }

  function chosenSeed() {
    const seed = Number($("seed").value);
    return $("seed").value !== "" && Number.isInteger(seed) && seed >= 0 ? seed : 0;
  }

  let setupShown = 0;           // the latest set-up board asked for: an older answer arriving late is dropped

  async function onScenario() {
    // the sides and the start of a scenario at the chosen seed (the start depends on it): from a game made and
    // dropped at once (the catalogue does not list them)
    const asked = ++setupShown;
    const seed = chosenSeed();
    const probe = await api("POST", "/v1/games", {ruleset: $("ruleset").value, scenario: $("scenario").value, seed: seed});
    await api("DELETE", "/v1/games/" + probe.id);
    const svg = await api("POST", "/v1/rulesets/" + probe.ruleset + "/picture", {position: probe.position}, "text");
    if (asked !== setupShown) return;
    NavalBoard.show($("setup-board"), svg);
    $("setup-board").dataset.seed = String(seed);
    const ships = {};
    probe.seats.forEach(function (s) { ships[s.side] = (ships[s.side] || 0) + 1; });
    const side = probe.sides.includes($("side").value) ? $("side").value : probe.sides[0];
    fillSelect($("side"), probe.sides.map(function (side, k) {
      return {value: side, text: side + (k === 0 ? " (first)" : " (second)") + ", " + ships[side] + " ship" +
              (ships[side] === 1 ? "" : "s")};
    }), side);
  }

  function aboutCaptain() {
    const info = rulesets[$("ruleset").value];
    const found = info.captains.find(function (c) { return c.name === $("captain").value; });
    $("captain-about").textContent = found ? found.name + ": " + found.description : "";
  }

  function onMode() {
    const watching = $("mode").value === "watch";
    document.body.classList.toggle("watching", watching);
    $("first-captain-label").textContent = watching ? "First captain" : "Opponent";
  }

  function randomSeed() { $("seed").value = String(Math.floor(Math.random() * 100000)); }

  let seedTimer = null;
  function onSeed() {           // typing a seed redraws the start once the typing pauses
    clearTimeout(seedTimer);
    seedTimer = setTimeout(function () { onScenario().catch(fail); }, 250);
  }

  // ------------------------------------------------------------------ a game
  async function start(event) {
    event.preventDefault();
    generation += 1;
    clearTimeout(timer);
    const info = rulesets[$("ruleset").value];
    const watching = $("mode").value === "watch";
    if ($("seed").value === "") randomSeed();
    setup = {ruleset: info.id, scenario: $("scenario").value, watching: watching, side: $("side").value,
             captain: $("captain").value, captain2: $("captain2").value, pace: Number($("pace").value),
             seed: Number($("seed").value)};
    $("error").hidden = true;
    game = await api("POST", "/v1/games", {ruleset: setup.ruleset, scenario: setup.scenario, seed: setup.seed});
    decisions = [];
    setup.captains = {};
    game.sides.forEach(function (side, k) {
      setup.captains[side] = watching ? (k === 0 ? setup.captain : setup.captain2)
        : side === setup.side ? "you" : setup.captain;
    });
    $("log").innerHTML = "";
    $("result").hidden = true;
    $("setup").hidden = true;
    $("game").hidden = false;
    $("watch-controls").hidden = !watching;
    $("escape-setting").hidden = true;   // shown once a ship of yours could escape
    $("decision").hidden = true;         // the last game's question, until this game asks its own
    closeConfirm();
    $("watch-pace").value = String(setup.pace);
    paused = false;
    $("pause").textContent = "\u23f8 pause";
    $("step").disabled = true;
    const who = game.sides.map(function (s) { return s + ": " + setup.captains[s]; }).join(" vs ");
    status(setup.ruleset + " \u00b7 " + setup.scenario.replace(/_/g, " ") + " \u00b7 " + who + " \u00b7 seed " +
           setup.seed);
    const opening = await api("GET", "/v1/games/" + game.id + "/events");
    if (opening.log.length) $("log").appendChild(NavalBoard.logItem("set-up", opening.log, opening.events));
    updateAfter();
    await advance(generation);
  }

  async function draw() {
    const svg = await api("POST", "/v1/rulesets/" + game.ruleset + "/picture", {position: game.position}, "text");
    NavalBoard.show(board, svg);
    board.dataset.decisions = String(game.decisions);
  }

  function captainOf(seat) {
    const side = game.seats.find(function (s) { return s.id === seat; }).side;
    return setup.captains[side];
  }

  /** Play on until it is the person's decision (or the game ends); captains move at the chosen pace. */
  async function advance(run) {
    await draw();
    if (run !== generation) return;
    if (game.over) return finish();
    const seat = game.to_move;
    const captain = captainOf(seat);
    turnLine(seat, captain);
    if (captain === "you") return askPerson(seat);
    const pace = setup.watching ? Number($("watch-pace").value) : setup.pace;
    if (setup.watching && paused && !stepOnce) {
      $("turn").textContent = "Round " + game.round + " \u00b7 paused; next: " + seat + " (" + captain + ")";
      return;
    }
    stepOnce = false;
    clearTimeout(timer);        // one timer at a time, however often play and step were pressed
    timer = setTimeout(function () {
      captainMove(run, seat, captain).catch(fail);
    }, pace);
  }

  async function captainMove(run, seat, captain) {
    if (run !== generation) return;
    const legal = game.legal;
    busy = true;
    let result;
    try {
      result = await api("POST", "/v1/games/" + game.id + "/captain-moves", {captain: captain, seat: seat});
    } finally {
      busy = false;
    }
    if (run !== generation) return;
    record(seat, legal, result, captain);
    await advance(run);
  }

  function record(seat, legal, result, who, note) {
    decisions.push({seat: seat, action: result.action});
    const shown = {};
    Object.keys(result.move).forEach(function (name, k) {
      if ((legal[name] || []).length > 1 || result.action[k] !== 0) shown[name] = result.move[name];
    });
    const heading = game.decisions + 1 + ". " + NavalBoard.describeMove(seat + " (" + who + ")", shown) +
      (note ? " \u00b7 " + note : "");
    const item = NavalBoard.logItem(heading, result.log, result.events);
    item.className = note ? "auto" : who === "you" ? "mine" : "theirs";
    const log = $("log");
    log.appendChild(item);
    log.scrollTop = log.scrollHeight;
    game = result.game;
    updateAfter();
  }

  function turnLine(seat, captain) {
    const side = game.seats.find(function (s) { return s.id === seat; }).side;
    const fleet = game.seats.filter(function (s) { return s.side === side; });
    const which = fleet.length > 1 ? " (ship " + (fleet.findIndex(function (s) { return s.id === seat; }) + 1) +
      " of " + fleet.length + " of the " + side + " fleet)" : "";
    const turn = $("turn");
    turn.className = captain === "you" ? "yours" : "";
    turn.textContent = "Round " + game.round + " \u00b7 " + (captain === "you"
      ? "your decision: " + seat + which + ", ringed on the board"
      : seat + which + " (" + captain + ") is deciding\u2026");
  }

  function finish() {
    $("decision").hidden = true;
    $("step").disabled = true;
    $("pause").disabled = true;
    const you = setup.watching ? null : setup.side;
    let text;
    if (game.winner === null) {
      text = "Draw" + (game.truncated ? " at the round limit" : "") + " after " + game.round + " rounds.";
    } else {
      const who = game.winner === you ? game.winner + " (you)" : game.winner + " (" + setup.captains[game.winner] + ")";
      text = who + " wins in round " + game.round + "." + (you ? (game.winner === you ? " Well sailed!" : "") : "");
    }
    const banner = $("result");
    banner.textContent = "Game over: " + text;
    banner.className = you === null ? "" : game.winner === you ? "won" : game.winner === null ? "" : "lost";
    banner.hidden = false;
    $("turn").textContent = "";
    updateAfter();
    $("download-replay").focus();
  }

  function updateAfter() {
    $("download-replay").disabled = decisions.length === 0;
    $("open-viewer").disabled = decisions.length === 0;
    $("pause").disabled = !!(game && game.over);
  }

  // ------------------------------------------------------------------ the person's decision
  /** A decision whose only question is "go on, or leave by Fair Escape": the page answers it (go on) unless
      the person asked to be asked, so a fleet's ships at the edge cost no click each turn. */
  function escapeOnly(parts) {
    return parts.length === 1 && parts[0].options.length === 2 &&
      parts[0].options.every(function (o) { return o.label === PROCEED || o.label === ESCAPE; });
  }

  async function askPerson(seat) {
    const options = await api("GET", "/v1/games/" + game.id + "/options");
    previews.clear();
    const parts = options.components.filter(function (c) { return c.options.length > 1; });
    if (escapeOnly(parts)) {
      $("escape-setting").hidden = false;
      if (!$("ask-escape").checked) return sailOn(seat, parts[0].name);
    }
    pending = {seat: seat, options: options, parts: parts, selected: {}, active: 0};
    parts.forEach(function (c) { pending.selected[c.name] = c.options[0].label; });
    renderDecision();
    $("decision").hidden = false;
    const first = document.querySelector("#components .option");
    if (first) first.focus({preventScroll: true}); else $("submit-move").focus({preventScroll: true});
  }

  /** Options grouped for reading: labels up to their first comma ("ahead 3, port after 1" -> "ahead 3"),
      or by their first word or verb ("turn port1" -> "turn", "fire@enemy0" -> "fire"). */
  function groupsOf(component) {
    const labels = component.options.map(function (o) { return o.label; });
    const heads = new Set(labels.filter(function (l) { return l.includes(","); })
                                .map(function (l) { return l.split(",")[0]; }));
    const groups = new Map();
    component.options.forEach(function (option, k) {
      const label = option.label;
      const key = label.includes(",") ? label.split(",")[0] : heads.has(label) ? label : label.split(/[ @_]/)[0];
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push({option: option, number: k + 1});
    });
    return groups;
  }

  function optionButton(component, option, number, shortText) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "option";
    button.dataset.component = component.name;
    button.dataset.label = option.label;
    button.dataset.number = String(number);
    button.title = option.text;
    const key = document.createElement("span");
    key.className = "key";
    key.textContent = String(number);
    button.appendChild(key);
    button.appendChild(document.createTextNode(" " + (shortText || option.label)));
    button.addEventListener("click", function () { choose(component.name, option.label, true); });
    button.addEventListener("mouseenter", function () { hover(component, option); });
    button.addEventListener("focus", function () { activate(component.name); hover(component, option); });
    button.addEventListener("mouseleave", function () { unhover(component); });
    button.addEventListener("blur", function () { unhover(component); });
    return button;
  }

  function renderDecision() {
    const box = $("components");
    box.innerHTML = "";
    pending.parts.forEach(function (component, index) {
      const fieldset = document.createElement("fieldset");
      fieldset.className = "component";
      fieldset.dataset.component = component.name;
      fieldset.dataset.index = String(index);
      const legend = document.createElement("legend");
      legend.textContent = component.name.replace(/_/g, " ") + (component.subject ? ": " + component.subject : "");
      fieldset.appendChild(legend);
      const about = document.createElement("p");
      about.className = "about";
      about.textContent = component.description;
      fieldset.appendChild(about);
      if (component.options.length > GROUP_OVER) {
        groupsOf(component).forEach(function (members, key) {
          const row = document.createElement("div");
          row.className = "group";
          const name = document.createElement("span");
          name.className = "group-name";
          name.textContent = key;
          row.appendChild(name);
          members.forEach(function (m) {
            const rest = m.option.label.startsWith(key + ",") ? m.option.label.slice(key.length + 1).trim()
              : m.option.label === key ? (members.length > 1 ? "straight" : key) : m.option.label;
            row.appendChild(optionButton(component, m.option, m.number, rest));
          });
          fieldset.appendChild(row);
        });
      } else {
        const row = document.createElement("div");
        row.className = "group";
        component.options.forEach(function (option, k) { row.appendChild(optionButton(component, option, k + 1)); });
        fieldset.appendChild(row);
      }
      const hint = document.createElement("p");
      hint.className = "hint";
      fieldset.appendChild(hint);
      fieldset.addEventListener("click", function () { activate(component.name); });
      box.appendChild(fieldset);
    });
    if (!pending.parts.length) {
      const only = document.createElement("p");
      only.textContent = "Nothing to choose this time: make the move to go on.";
      box.appendChild(only);
    }
    activate(pending.parts.length ? pending.parts[0].name : null);
    refreshSelection();
  }

  function activate(name) {
    if (!pending) return;
    const index = pending.parts.findIndex(function (c) { return c.name === name; });
    if (index >= 0) pending.active = index;
    document.querySelectorAll("#components .component").forEach(function (f) {
      f.classList.toggle("active", Number(f.dataset.index) === pending.active);
    });
  }

  function choose(name, label, fromClick) {
    pending.selected[name] = label;
    activate(name);
    refreshSelection();
    const component = pending.parts.find(function (c) { return c.name === name; });
    if (MOVEMENT.test(name)) preview(component, null);
    if (!fromClick && pending.active + 1 < pending.parts.length) {
      activate(pending.parts[pending.active + 1].name);
      const next = document.querySelector('#components .component.active .option.selected');
      if (next) next.focus({preventScroll: true});
    }
  }

  function refreshSelection() {
    if (!pending) return;
    document.querySelectorAll("#components .option").forEach(function (button) {
      const on = pending.selected[button.dataset.component] === button.dataset.label;
      button.classList.toggle("selected", on);
      button.setAttribute("aria-pressed", on ? "true" : "false");
    });
    pending.parts.forEach(function (component) {
      const label = pending.selected[component.name];
      const option = component.options.find(function (o) { return o.label === label; });
      const hint = document.querySelector('#components .component[data-component="' + component.name + '"] .hint');
      if (hint) { hint.textContent = label + ": " + option.text; hint.title = hint.textContent; }
    });
    const summary = pending.parts.map(function (c) { return c.name + ": " + pending.selected[c.name]; });
    $("chosen").textContent = summary.length ? summary.join(" \u00b7 ") : "";
  }

  function moveWith(component, option) {
    const move = Object.assign({}, pending.selected);
    if (component && option) move[component.name] = option.label;
    return move;
  }

  function hover(component, option) {
    if (!pending) return;
    const hint = document.querySelector('#components .component[data-component="' + component.name + '"] .hint');
    if (hint) { hint.textContent = option.label + ": " + option.text; hint.title = hint.textContent; }
    if (MOVEMENT.test(component.name)) preview(component, option);
  }

  function unhover(component) {
    if (!pending) return;
    refreshSelection();
    if (MOVEMENT.test(component.name)) preview(component, null);
  }

  function preview(component, option) {
    showPreview(component, option).catch(function (error) {
      $("preview-caption").textContent = "No preview: " + error.message;
    });
  }

  async function showPreview(component, option) {
    if (!pending) return;
    const move = moveWith(component, option);
    const shownLabel = move[component.name];
    const caption = $("preview-caption");
    if (shownLabel === component.options[0].label && !option) {
      NavalBoard.clearGhost(board);
      caption.textContent = "";
      return;
    }
    const key = JSON.stringify(move);
    const seat = pending.seat;
    let preview = previews.get(key);
    if (!preview) {
      preview = await api("POST", "/v1/rulesets/" + game.ruleset + "/preview",
                          {position: game.position, seat: seat, move: move});
      previews.set(key, preview);
    }
    if (!pending || pending.seat !== seat || JSON.stringify(moveWith(component, option)) !== key) return;
    const laid = NavalBoard.ghost(board, preview.picture, seat);
    const moved = preview.log.filter(function (line) { return line.startsWith(seat + " moves"); });
    const warning = leavesWarning(preview, seat);
    caption.classList.toggle("warn", warning !== "");
    caption.textContent = warning + "Preview of " + component.name + " \u201c" + shownLabel + "\u201d: " +
      (moved.length ? moved.join("; ") : laid ? "the ship as it would stand" : "no change on the board") +
      (preview.fixed ? " (fixed before any die is rolled)." : " (this needs dice: one possible outcome).");
  }

  /** Go on with the turn without asking (see escapeOnly); the log says so and how to be asked. */
  async function sailOn(seat, component) {
    const move = {}, legal = game.legal, run = generation;
    move[component] = PROCEED;
    const result = await api("POST", "/v1/games/" + game.id + "/moves", {seat: seat, move: move});
    if (run !== generation) return;
    record(seat, legal, result, "you", seat + " could leave the battle by Fair Escape; it sails on (tick \u201cAsk me " +
           "before each turn a ship could leave\u201d to be asked)");
    await advance(run);
  }

  /** Fair Escape loses the ship for good (and a duel with it): the move waits for a second, explicit click. */
  function confirmEscape(seat, onLeave) {
    const side = game.seats.find(function (s) { return s.id === seat; }).side;
    const others = game.seats.filter(function (s) { return s.side === side && s.active && s.id !== seat; });
    $("confirm-text").textContent = "Fair Escape: " + seat + " leaves the battle for good and counts as lost. " +
      (others.length ? "Your other ships fight on." : "It is your last ship: you lose the game.");
    $("confirm").hidden = false;
    $("submit-move").disabled = true;
    $("confirm-stay").focus({preventScroll: true});
    $("confirm-leave").onclick = function () { closeConfirm(); onLeave(); };
    $("confirm-stay").onclick = closeConfirm;
  }

  function closeConfirm() {
    $("confirm").hidden = true;
    $("submit-move").disabled = false;
  }

  /** "Warning: ..." when the previewed move takes the acting ship out of the battle (sails off the table, say)
      or ends the game; "" otherwise. Read from the preview's events, as the log tells them. */
  function leavesWarning(preview, seat) {
    const gone = preview.events.map(function (e, k) { return [e, preview.log[k]]; }).filter(function (pair) {
      return pair[0].ship === seat && /lost|escape|fled|sunk|sank|destroyed/.test(pair[0].kind);
    }).map(function (pair) { return pair[1]; });
    const ended = preview.events.findIndex(function (e) { return e.kind === "game_ended"; });
    if (!gone.length && ended < 0) return "";
    const you = setup.watching ? null : setup.side;
    const winner = ended < 0 ? null : preview.events[ended].winner;
    const end = ended < 0 ? "" : winner === null ? " The game ends in a draw." :
      " The game ends: " + winner + " wins" + (you === null ? "." : winner === you ? " (you)." : " (you lose).");
    return "\u26a0 Warning: " + (gone.length ? gone.join("; ") + "." : "") + end + " ";
  }

  async function submitMove(event, confirmed) {
    if (event) event.preventDefault();
    if (!pending || !$("confirm").hidden) return;
    const escaping = Object.keys(pending.selected).some(function (k) { return pending.selected[k] === ESCAPE; });
    if (escaping && !confirmed) {
      confirmEscape(pending.seat, function () { submitMove(null, true).catch(fail); });
      return;
    }
    const seat = pending.seat, move = Object.assign({}, pending.selected), legal = game.legal;
    pending = null;
    $("decision").hidden = true;
    NavalBoard.clearGhost(board);
    $("preview-caption").textContent = "";
    $("preview-caption").classList.remove("warn");
    const result = await api("POST", "/v1/games/" + game.id + "/moves", {seat: seat, move: move});
    record(seat, legal, result, "you");
    await advance(generation);
  }

  // ------------------------------------------------------------------ keys
  let typed = "", typedAt = 0;

  function onKey(event) {
    if (!pending || $("decision").hidden) return;
    if (event.target && event.target.closest && event.target.closest("#setup")) return;
    if (!$("confirm").hidden) return;   // Enter answers the focused button of the Fair Escape question
    if (event.key === "Enter") {
      event.preventDefault();
      submitMove().catch(fail);
      return;
    }
    if (!/^[0-9]$/.test(event.key) || !pending.parts.length) return;
    const component = pending.parts[pending.active];
    const now = Date.now();
    typed = now - typedAt < 800 ? typed + event.key : event.key;
    typedAt = now;
    let number = Number(typed);
    if (number < 1 || number > component.options.length) { typed = event.key; number = Number(typed); }
    if (number >= 1 && number <= component.options.length) {
      event.preventDefault();
      const option = component.options[number - 1];
      // a number that a further digit could extend waits for it before moving on to the next part
      const mayGrow = number * 10 <= component.options.length;
      pending.selected[component.name] = option.label;
      refreshSelection();
      const button = document.querySelector('#components .option[data-component="' + component.name +
                                            '"][data-number="' + number + '"]');
      if (button) button.focus({preventScroll: true});
      if (!mayGrow) { typed = ""; choose(component.name, option.label, false); }
    }
  }

  // ------------------------------------------------------------------ watch controls
  function togglePause() {
    paused = !paused;
    $("pause").textContent = paused ? "\u25b6 play" : "\u23f8 pause";
    $("step").disabled = !paused || game.over;
    if (!paused && !game.over && !busy) advance(generation).catch(fail);
  }

  function step() {
    if (!paused || game.over || busy) return;
    stepOnce = true;
    advance(generation).catch(fail);
  }

  // ------------------------------------------------------------------ replay
  function replayRequest() {
    return {ruleset: setup.ruleset, scenario: setup.scenario, seed: setup.seed, captains: setup.captains,
            decisions: decisions};
  }

  async function downloadReplay() {
    const blob = await api("POST", "/v1/replays", replayRequest(), "blob");
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = setup.ruleset + "-" + setup.scenario + "-" + setup.seed + ".jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
    status("Replay saved as " + link.download + ": open it with  naval-tactics replay " + link.download +
           " --html game.html");
  }

  async function openViewer() {
    const html = await api("POST", "/v1/replays/page", replayRequest(), "text");
    const url = URL.createObjectURL(new Blob([html], {type: "text/html"}));
    window.open(url, "_blank");
  }

  function newGame() {
    generation += 1;
    clearTimeout(timer);
    pending = null;
    closeConfirm();
    $("decision").hidden = true;   // no question of the old game is left to answer
    $("turn").textContent = "";
    $("game").hidden = true;
    $("setup").hidden = false;
    randomSeed();
    onScenario().catch(fail);
    $("start").focus();
  }

  // ------------------------------------------------------------------ wiring
  async function init() {
    const list = await api("GET", "/v1/rulesets");
    list.rulesets.forEach(function (r) { rulesets[r.id] = r; });
    fillSelect($("ruleset"), list.rulesets.map(function (r) { return {value: r.id, text: r.id.replace(/_/g, " ")}; }),
               list.rulesets[0].id);
    randomSeed();
    $("ruleset").addEventListener("change", function () { onRuleset().catch(fail); });
    $("scenario").addEventListener("change", function () { onScenario().catch(fail); });
    $("captain").addEventListener("change", aboutCaptain);
    $("mode").addEventListener("change", onMode);
    $("reseed").addEventListener("click", function () { randomSeed(); onScenario().catch(fail); });
    $("seed").addEventListener("input", onSeed);
    $("setup").addEventListener("submit", function (event) { start(event).catch(fail); });
    $("decision").addEventListener("submit", function (event) { submitMove(event).catch(fail); });
    $("pause").addEventListener("click", togglePause);
    $("step").addEventListener("click", step);
    $("download-replay").addEventListener("click", function () { downloadReplay().catch(fail); });
    $("open-viewer").addEventListener("click", function () { openViewer().catch(fail); });
    $("new-game").addEventListener("click", newGame);
    document.addEventListener("keydown", onKey);
    onMode();
    await onRuleset();
    status("Choose a ruleset, a scenario and your opponent, then Start.");
    document.body.dataset.ready = "true";
  }

  init().catch(fail);
})();
