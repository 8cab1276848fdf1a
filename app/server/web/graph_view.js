// The graph view of `cairn serve`: searches, then draws the graph around a memory as SVG.
// Every label is set with textContent (never parsed as markup): titles are memory content.
// The token lives in this variable only; it is sent to this server's own endpoints and nowhere
// else (the page's Content-Security-Policy allows no other destination).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const RING = 110; // distance between depth rings
const LABEL_MAX = 28;
const ID_PATTERN = /^[0-9A-Za-z]{26}$/;
let token = "";

function $(id) {
  return document.getElementById(id);
}

function say(text, isError) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

async function getJSON(path) {
  const headers = token ? { Authorization: "Bearer " + token } : {};
  const response = await fetch(path, {
    headers,
    cache: "no-store",
    credentials: "omit",
    referrerPolicy: "no-referrer",
  });
  let body = null;
  try {
    body = await response.json();
  } catch (err) {
    throw new Error("The server answered " + response.status + " without JSON.");
  }
  if (!response.ok) {
    const message = body && typeof body.message === "string" ? body.message : "";
    throw new Error(response.status + " " + (message || response.statusText));
  }
  return body;
}

function short(text) {
  const value = String(text || "");
  return value.length > LABEL_MAX ? value.slice(0, LABEL_MAX - 1) + "\u2026" : value;
}

function colourFor(types) {
  const classes = new Map();
  for (const type of types) {
    if (!classes.has(type)) classes.set(type, "c" + (classes.size % 8));
  }
  return classes;
}

// Rings by depth from the start; each ring ordered by where its parents sit, so links mostly
// point outwards instead of crossing the middle.
function layout(graph) {
  const root = graph.graph && graph.graph.root;
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const link of graph.links) {
    for (const [a, b] of [[link.source, link.target], [link.target, link.source]]) {
      const near = byId.get(a);
      const far = byId.get(b);
      if (near && far && (far.depth || 0) === (near.depth || 0) + 1 && !parent.has(b)) {
        parent.set(b, a);
      }
    }
  }
  const rings = new Map();
  for (const node of graph.nodes) {
    const depth = node.id === root ? 0 : node.depth || 1;
    if (!rings.has(depth)) rings.set(depth, []);
    rings.get(depth).push(node);
  }
  const place = new Map();
  for (const depth of [...rings.keys()].sort((a, b) => a - b)) {
    const ring = rings.get(depth);
    if (depth === 0) {
      for (const node of ring) place.set(node.id, { x: 0, y: 0, angle: 0 });
      continue;
    }
    const angleOf = (node) => (place.get(parent.get(node.id)) || { angle: 0 }).angle;
    ring.sort((a, b) => angleOf(a) - angleOf(b) || String(a.title).localeCompare(b.title));
    ring.forEach((node, i) => {
      const angle = (2 * Math.PI * i) / ring.length + depth * 0.3;
      place.set(node.id, {
        x: Math.cos(angle) * RING * depth,
        y: Math.sin(angle) * RING * depth,
        angle,
      });
    });
  }
  return { place, depth: Math.max(1, ...rings.keys()) };
}

function element(name, attributes, parentNode) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  parentNode.appendChild(node);
  return node;
}

function draw(graph, depthWanted) {
  const svg = $("graph");
  const legend = $("legend");
  clear(svg);
  clear(legend);
  const { place, depth } = layout(graph);
  const half = RING * depth + 90;
  svg.setAttribute("viewBox", [-half, -half, 2 * half, 2 * half].join(" "));
  const colours = colourFor(graph.nodes.map((node) => node.type || "?"));
  const lines = element("g", {}, svg);
  const edgeLabels = graph.links.length <= 40;
  for (const link of graph.links) {
    const a = place.get(link.source);
    const b = place.get(link.target);
    if (!a || !b) continue;
    element("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y }, lines);
    if (edgeLabels && link.type) {
      const label = element("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, class: "edge" }, lines);
      label.textContent = link.type;
    }
  }
  const dots = element("g", {}, svg);
  for (const node of graph.nodes) {
    const at = place.get(node.id);
    if (!at) continue;
    const isRoot = node.id === graph.graph.root;
    const marks = (isRoot ? " root" : "") + (node.awaiting_review ? " awaiting" : "");
    const circle = element(
      "circle",
      { cx: at.x, cy: at.y, r: isRoot ? 12 : 8, class: colours.get(node.type || "?") + marks },
      dots,
    );
    const tip = element("title", {}, circle);
    const waiting = node.awaiting_review ? " (awaiting review: it may repeat another memory)" : "";
    tip.textContent = (node.type || "") + ": " + (node.title || node.id) + waiting;
    circle.addEventListener("click", () => show(node.id, depthWanted));
    const label = element("text", { x: at.x + 13, y: at.y + 4 }, dots);
    label.textContent = short(node.title || node.id) + (node.awaiting_review ? " \u2026 awaiting review" : "");
  }
  for (const [type, cls] of colours) {
    const item = document.createElement("span");
    const swatch = document.createElement("i");
    swatch.className = cls;
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(type));
    legend.appendChild(item);
  }
  const more = graph.graph.truncated ? " (cut short: the walk reached its limit)" : "";
  say(graph.nodes.length + " memories, " + graph.links.length + " links" + more + ".");
}

async function show(id, depth) {
  say("Drawing\u2026");
  try {
    const path = "/v1/nodes/" + encodeURIComponent(id) + "/subgraph?depth=" + depth;
    draw(await getJSON(path), depth);
    history.replaceState(null, "", "#node=" + encodeURIComponent(id) + "&depth=" + depth);
  } catch (err) {
    say(err.message, true);
  }
}

function listHits(results, depth) {
  const hits = $("hits");
  clear(hits);
  for (const hit of results) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = hit.title || hit.id;
    button.addEventListener("click", () => show(hit.id, depth));
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = " " + (hit.type || "");
    item.appendChild(button);
    item.appendChild(kind);
    hits.appendChild(item);
  }
}

async function ask(event) {
  event.preventDefault();
  token = $("token").value.trim();
  const query = $("query").value.trim();
  const depth = Number($("depth").value) || 2;
  if (!query) return;
  if (ID_PATTERN.test(query)) {
    await show(query, depth);
    return;
  }
  say("Searching\u2026");
  try {
    const found = await getJSON("/v1/search?q=" + encodeURIComponent(query));
    listHits(found.results, depth);
    if (!found.results.length) {
      clear($("graph"));
      say("Nothing found for that search.");
      return;
    }
    await show(found.results[0].id, depth);
  } catch (err) {
    say(err.message, true);
  }
}

function start() {
  $("ask").addEventListener("submit", ask);
  const wanted = new URLSearchParams(location.hash.slice(1));
  if (wanted.get("node")) $("query").value = wanted.get("node");
  if (wanted.get("depth")) $("depth").value = wanted.get("depth");
  say("Paste a token, then search.");
}

document.addEventListener("DOMContentLoaded", start);
