/* The board and log drawing shared by the replay viewer (inlined into each replay page) and the /play page
   (served at /play/board.js). The board itself is the rules' own SVG picture, painted in Python
   (naval_env/core/picture.py); this file shows it, lays a previewed ship over it, and writes the log. */
(function (root) {
  "use strict";

  /** Show an SVG document (text) as the board inside `container`. */
  function show(container, svgText) {
    container.innerHTML = svgText;
    const svg = container.querySelector("svg");
    if (svg) svg.setAttribute("role", "img");
    return svg;
  }

  /** The shapes of `ship` (and the ranges, arcs and lines it casts) in another picture of the same game. */
  const GHOST_ROLES = ["ship", "bow", "ship-label", "footprint", "weapon-arc", "long-range", "gun-arc", "gun-range",
                       "fire-range", "archer-reach", "reach", "ram-line", "attack-line", "aim"];

  function ownedBy(element, ship) {
    const ref = element.getAttribute("data-ref") || "";
    return ref === ship || ref.startsWith(ship + ".") || ref.startsWith(ship + ">");
  }

  /** Lay `ship` as it stands in `previewSvgText` over the board in `container`, faded and dashed: a ghost.
      Returns the number of shapes laid (0 when the preview does not show that ship). */
  function ghost(container, previewSvgText, ship) {
    clearGhost(container);
    const board = container.querySelector("svg");
    if (!board) return 0;
    const preview = new DOMParser().parseFromString(previewSvgText, "image/svg+xml").documentElement;
    const layer = document.createElementNS("http://www.w3.org/2000/svg", "g");
    layer.setAttribute("class", "ghost");
    layer.setAttribute("data-ref", ship);
    GHOST_ROLES.forEach(function (role) {
      preview.querySelectorAll("." + role).forEach(function (shape) {
        if (!ownedBy(shape, ship)) return;
        const copy = document.importNode(shape, true);
        if (role === "ship") {
          copy.setAttribute("stroke", "#1d2733");
          copy.setAttribute("stroke-width", "2");
          copy.setAttribute("stroke-dasharray", "5 3");
          copy.setAttribute("fill-opacity", "0.55");
        }
        layer.appendChild(copy);
      });
    });
    if (!layer.childNodes.length) return 0;
    board.appendChild(layer);
    return layer.childNodes.length;
  }

  function clearGhost(container) {
    container.querySelectorAll("svg g.ghost").forEach(function (layer) { layer.remove(); });
  }

  /** "red_0 — maneuver: ahead 2, attack: fire@enemy0" (choices by label; the set-up has no actor). */
  function describeMove(actor, move) {
    if (actor === null || actor === undefined) return "set-up";
    const parts = Object.entries(move || {}).map(function (entry) { return entry[0] + ": " + entry[1]; });
    return actor + " \u2014 " + (parts.length ? parts.join(", ") : "passes");
  }

  function list(values) {
    return (values || []).join(", ");
  }

  function signed(value) {
    return value < 0 ? "\u2212 " + Math.abs(value) : "+ " + value;
  }

  /** The dice of an event in words, or null when it rolled none (events as the server writes them out). */
  function diceWords(e) {
    switch (e.kind) {
      case "test":          // pantheon: pool + d10 against pool + d10
        return e.attacker + " rolls " + e.attack_roll + " on a d10 and adds its " + e.test + " pool of " +
          e.attack_pool + " = " + (e.attack_pool + e.attack_roll) + "; " + e.defender + " rolls " + e.defense_roll +
          " + " + e.defense_pool + " = " + (e.defense_pool + e.defense_roll) + ": " + e.result +
          (e.retest_by ? " (" + e.retest_by + " spends a retest)" : "") + ".";
      case "check":         // crew_phase: d20 + modifier against a DC
        return "crew " + e.crew + " of " + e.ship + (e.rolls.length > 1 ? " rolls two d20 (" + list(e.rolls) +
          "; advantage or disadvantage picks one)," : " rolls a d20: " + list(e.rolls)) + " " + signed(e.modifier) +
          " = " + e.total + ", needing " + e.dc + ": " + (e.success ? "success" : "failure") + ".";
      case "attack":        // crew_phase: d20 + modifier against armour class
        if (e.rolls === undefined) return null;
        return e.ship + "'s weapon " + e.weapon + " rolls a d20: " + list(e.rolls) + " " + signed(e.modifier) +
          " = " + e.total + " against armour class " + e.ac + ": " +
          (e.critical ? "a critical hit" : e.hit ? "a hit" : "a miss") + ".";
      case "volley":        // broadside: a d20 per shot, the range or higher hits
        return e.ship + "'s " + e.battery + " roll " + e.rolls.length + " d20 (" + list(e.rolls) + "); each " +
          Math.ceil(e.needed) + " or more hits at " + Number(e.distance).toFixed(1) + " in: " + e.hits + " hit" +
          (e.hits === 1 ? "" : "s") + ".";
      case "contest":       // flotilla: dice pools against each other
        return e.roll + ": " + e.a + " rolls " + e.a_dice + " d6 (" + list(e.a_faces) + "), " +
          (e.b === null || e.b === undefined ? "the difficulty" : e.b) + " rolls " +
          e.b_dice + " d6 (" + list(e.b_faces) + "): " + String(e.result).replace(/_/g, " ") + ".";
      case "fate":
        return e.ship + "'s " + e.character + " rolls " + e.roll + " for fate: " + e.fate + ".";
      case "hit_location":
        return "a d10 for where the hit lands on " + e.ship + ": " + e.roll + ", the " + e.part + ".";
      case "wind":
        return "a d" + e.die + " for the wind: " + e.roll + ", it blows " + e.wind + ".";
      case "roll":          // pursuit: d20 + modifiers against a target number
        return e.ship + " rolls a d20 for " + e.roll + ": " + e.die + " " + signed(e.modifier) +
          (e.boons ? " " + signed(e.boon_die) + " (" + e.boons + " boons)" : "") + " = " + e.total +
          ", needing " + e.target + ": " + e.result + ".";
      case "ram":           // crew_phase: d20 + modifier against armour class (broadside's ram rolls none)
        if (e.rolls === undefined) return null;
        return e.rammer + " rolls a d20 to ram " + e.target + ": " + list(e.rolls) + " " + signed(e.modifier) +
          " = " + e.total + " against armour class " + e.ac + ": " + (e.hit ? "a hit" : "a miss") + ".";
      case "repaired":
        if (e.roll === undefined) return null;
        return "the hull die rolls " + e.roll + ": " + e.part + " mended by " + e.amount + ".";
      case "initiative":    // pantheon: scores; flotilla: each ship's throw
        if (e.throws) {
          return "initiative throws: " + e.order.map(function (s, k) {
            return s + " rolls " + list(e.throws[k]);
          }).join(", ") + "; the first named acts first.";
        }
        return "initiative: " + e.order.map(function (s, k) { return s + " " + e.scores[k]; }).join(", ") +
          "; the highest acts first.";
      case "ship_phase":
        return "initiative: " + e.order.map(function (s, k) { return s + " " + e.initiative[k]; }).join(", ") +
          "; the highest acts first.";
      case "boarding":      // broadside: attackers' dice against the defenders'
        if (e.unopposed || !e.attacker_rolls) return null;
        return "boarders roll " + list(e.attacker_rolls) + " against the defenders' " + list(e.defender_dice) +
          ": " + e.boarded + " get aboard, " + e.thrown_back + " are thrown back.";
      case "melee":
        return "the defenders of " + e.ship + " roll " + list(e.defender_dice) + ", the boarders " +
          list(e.attacker_rolls) + ": " + e.defenders_lost + " defender(s) and " + e.attackers_lost +
          " boarder(s) fall.";
      case "collateral":
        return "a die for collateral damage on " + e.target + ": " + e.roll + ", " + e.effect + " " + e.amount + ".";
      case "mishap":
        return e.ship + " rolls " + e.roll + " on the mishap table: " + e.mishap + ".";
      default:
        return null;
    }
  }

  /** One log entry: a heading (the decision) and the sentences of what it caused, each with its dice in
      words where `events` (written-out events, in step with `texts`) rolled any. */
  function logItem(heading, texts, events) {
    const li = document.createElement("li");
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = heading;
    li.appendChild(who);
    if (texts.length) {
      const ul = document.createElement("ul");
      texts.forEach(function (text, k) {
        const item = document.createElement("li");
        item.textContent = text;
        const words = events && events[k] ? diceWords(events[k]) : null;
        if (words) {
          const dice = document.createElement("div");
          dice.className = "dice";
          dice.textContent = words;
          item.appendChild(dice);
        }
        ul.appendChild(item);
      });
      li.appendChild(ul);
    }
    return li;
  }

  root.NavalBoard = {show: show, ghost: ghost, clearGhost: clearGhost, describeMove: describeMove,
                     diceWords: diceWords, logItem: logItem};
})(window);
