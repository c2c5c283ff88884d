#!/usr/bin/env node
// Play a whole game against a captain on a running naval-tactics server, with nothing but Node 20+.
//
//   naval-tactics serve --port 8765            (in another terminal)
//   node examples/node/play.js --url http://127.0.0.1:8765 --ruleset pantheon --captain gunner --seed 7
//
// This script is "the app": it holds the first side and picks a random legal label for every
// action component from the legal options the server lists; the named captain holds the other
// side. It prints the result and exits 0, or prints the server's error and exits 1 (2 for bad flags).
"use strict";

const USAGE =
  "usage: node play.js --url URL --ruleset RULESET [--captain NAME] [--seed N] [--scenario NAME] [--quiet]";

function parseArgs(argv) {
  const flags = { url: "http://127.0.0.1:8765", captain: "random", seed: "0", quiet: false };
  const known = new Set(["url", "ruleset", "captain", "seed", "scenario"]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") { console.log(USAGE); process.exit(0); }
    if (arg === "--quiet") { flags.quiet = true; continue; }
    const name = arg.startsWith("--") ? arg.slice(2) : null;
    if (!known.has(name) || i + 1 >= argv.length) usageError(`unknown flag or missing value: ${arg}`);
    flags[name] = argv[++i];
  }
  if (!flags.ruleset) usageError("--ruleset is required");
  if (!/^\d+$/.test(flags.seed)) usageError(`--seed must be a whole number, not ${flags.seed}`);
  flags.seed = Number(flags.seed);
  flags.url = flags.url.replace(/\/+$/, "");
  return flags;
}

function usageError(message) {
  console.error(`error: ${message}\n${USAGE}`);
  process.exit(2);
}

// mulberry32: a tiny seeded generator, so the app side's choices repeat with the seed.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class ServerError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || { code: `http_${status}`, message: JSON.stringify(body) };
    const problems = (error.problems || []).map((p) => `\n  ${p.path || "<body>"}: ${p.message}`).join("");
    super(`${status} ${error.code}: ${error.message}${problems}`);
  }
}

async function call(base, method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    // Not the server's JSON (a proxy's error page, another program on that port): say what came back.
    throw new Error(`${method} ${path}: HTTP ${response.status}, not JSON: ${text.slice(0, 120)}`);
  }
  if (!response.ok) throw new ServerError(response.status, data);
  return data;
}

function randomMove(legal, random) {
  const move = {};
  for (const [component, labels] of Object.entries(legal)) {
    move[component] = labels[Math.floor(random() * labels.length)];
  }
  return move;
}

async function play(flags) {
  const info = await call(flags.url, "GET", `/v1/rulesets/${encodeURIComponent(flags.ruleset)}`);
  const captains = info.captains.map((c) => c.name);
  if (!captains.includes(flags.captain)) {
    throw new Error(`unknown captain ${flags.captain} for ${flags.ruleset}; known: ${captains.join(", ")}`);
  }
  const request = { ruleset: flags.ruleset, seed: flags.seed };
  if (flags.scenario) request.scenario = flags.scenario;
  let game = await call(flags.url, "POST", "/v1/games", request);
  const sideOf = Object.fromEntries(game.seats.map((s) => [s.id, s.side]));
  const [appSide, captainSide] = game.sides;
  const random = generator(flags.seed);
  let decisions = 0;
  try {
    while (!game.over) {
      if (++decisions > 100000) throw new Error("the game did not end within 100000 decisions");
      if (sideOf[game.to_move] === appSide) {
        const move = randomMove(game.legal, random);
        game = (await call(flags.url, "POST", `/v1/games/${game.id}/moves`, { seat: game.to_move, move })).game;
      } else {
        const answer = await call(flags.url, "POST", `/v1/games/${game.id}/captain-moves`, { captain: flags.captain });
        game = answer.game;
      }
    }
    const events = await call(flags.url, "GET", `/v1/games/${game.id}/events`);
    const result = game.winner === null ? "a draw" : `${game.winner} won`;
    if (!flags.quiet) for (const line of events.log.slice(-5)) console.log(`  ${line}`);
    console.log(
      `${flags.ruleset} ${game.scenario} seed ${game.seed}: ${result}` +
        `${game.truncated ? " (round limit)" : ""} after ${game.decisions} decisions, ${game.round} rounds, ` +
        `${events.total} events; app (random labels) = ${appSide}, ${flags.captain} = ${captainSide}`
    );
    return game;
  } finally {
    await call(flags.url, "DELETE", `/v1/games/${game.id}`).catch(() => {});
  }
}

if (require.main === module) {
  play(parseArgs(process.argv.slice(2))).then(
    () => process.exit(0),
    (error) => {
      const reason = error.cause ? ` (${error.cause.code || error.cause.message})` : "";
      console.error(`error: ${error.message}${reason}`);
      process.exit(1);
    }
  );
}

module.exports = { play, randomMove, generator };
