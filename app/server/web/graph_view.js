// The graph view of `cairn serve`: searches, then draws the graph around a memory as SVG.
// Every label is set with textContent (never parsed as markup): titles are memory content.
// The token lives in this variable only; it is sent to this server's own endpoints and nowhere
// else (the page's Content-Security-Policy allows no other destination).
//
// Titles follow the window's rule (ui/graph/label_rule.py): taken in order of importance (the
// memory drawn around, then one link away, then two, then the rest; the most linked first
// within each), each gets the zoom from which it fits beside every more important title
// already written there, and is written from that zoom on. So no title covers another,
// zooming in only adds titles, and hovering a dot names any memory.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const RING = 110; // distance between depth rings, in layout units
const LABEL_MAX = 28;
const FONT = "12px system-ui, sans-serif";
const CHAR_PX = 7; // a title's width per letter where the page cannot measure it
const GAP_PX = 4; // room kept between two titles
const LINE_PX = 16; // a title's height
const CROWDED = 100; // memories; more than this are drawn as smaller dots
const GAP_AFTER_DOT_PX = 5; // from a dot's edge to its title
const BASELINE_PX = 4;
const ZOOM_STEP = 1.25;
const ZOOMS = [0.05, 16]; // screen pixels per layout unit, farthest and closest
const NEAR_TIERS = 2;
const MARGIN_PX = 40;
const ID_PATTERN = /^[0-9A-Za-z]{26}$/;
// Colours a class stands for, said in words in the legend.
const NODE_COLOURS = ["blue", "orange", "green", "red", "teal", "yellow", "purple", "brown"];
const EDGE_COLOURS = ["grey", "blue", "orange", "purple", "green", "red"];
let token = "";
let shown = null; // what is drawn: {nodes, links, reveal, shift, zoom, x, y, byHand}
let measurer = null;
let dragged = false;

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

function classesFor(names, prefix, count) {
  const classes = new Map();
  for (const name of names) {
    if (!classes.has(name)) classes.set(name, prefix + (classes.size % count));
  }
  return classes;
}

function textWidth(text) {
  if (measurer === null) {
    const canvas = document.createElement("canvas");
    measurer = (canvas.getContext && canvas.getContext("2d")) || false;
    if (measurer) measurer.font = FONT;
  }
  return measurer ? measurer.measureText(text).width : CHAR_PX * text.length;
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
  return place;
}

// Node indexes, the most important first: the start, then by links away from it (up to
// NEAR_TIERS), then the rest; within each, the most linked, then the shorter title.
function importance(graph, texts) {
  const root = graph.graph.root;
  const index = new Map(graph.nodes.map((node, i) => [node.id, i]));
  const degree = graph.nodes.map(() => 0);
  for (const link of graph.links) {
    for (const end of [link.source, link.target]) {
      if (index.has(end)) degree[index.get(end)] += 1;
    }
  }
  const tier = graph.nodes.map((node) => {
    if (node.id === root) return 0;
    const depth = node.depth || NEAR_TIERS + 1;
    return depth <= NEAR_TIERS ? depth + 1 : NEAR_TIERS + 2;
  });
  return graph.nodes
    .map((node, i) => i)
    .sort(
      (a, b) =>
        tier[a] - tier[b] || degree[b] - degree[a] || texts[a].length - texts[b].length || a - b,
    );
}

// Each title's reveal zoom (Infinity: only on hover), every title against the earlier ones:
// a subgraph holds at most a few hundred memories.
function revealZooms(points, widths, order) {
  const reveal = points.map(() => Infinity);
  const done = [];
  for (const i of order) {
    let need = ZOOMS[0];
    for (const j of done) {
      const dx = points[j].x - points[i].x;
      const dy = Math.abs(points[j].y - points[i].y);
      const left = dx >= 0 ? widths[i] : widths[j];
      const apart = Math.min(dx ? left / Math.abs(dx) : Infinity, dy ? LINE_PX / dy : Infinity);
      if (apart > need && apart > reveal[j]) need = apart;
    }
    if (need <= ZOOMS[1]) {
      reveal[i] = need;
      done.push(i);
    }
  }
  return reveal;
}

function element(name, attributes, parentNode) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  parentNode.appendChild(node);
  return node;
}

function size() {
  const svg = $("graph");
  const box = svg.getBoundingClientRect ? svg.getBoundingClientRect() : null;
  const width = (box && box.width) || svg.clientWidth || 800;
  const height = (box && box.height) || svg.clientHeight || 600;
  return { width, height };
}

function draw(graph, depthWanted) {
  const svg = $("graph");
  const legend = $("legend");
  clear(svg);
  clear(legend);
  const place = layout(graph);
  const types = classesFor(graph.nodes.map((node) => node.type || "?"), "c", 8);
  const kinds = classesFor(graph.links.map((link) => link.type || "?"), "e", 6);
  const lines = element("g", {}, svg);
  const links = [];
  for (const link of graph.links) {
    const a = place.get(link.source);
    const b = place.get(link.target);
    if (!a || !b) continue;
    links.push({ a, b, line: element("line", { class: kinds.get(link.type || "?") }, lines) });
  }
  const dots = element("g", {}, svg);
  const texts = graph.nodes.map(
    (node) => short(node.title || node.id) + (node.awaiting_review ? " \u2026 awaiting review" : ""),
  );
  const radius = graph.nodes.length > CROWDED ? 5 : 8;
  const nodes = graph.nodes.map((node, i) => {
    const isRoot = node.id === graph.graph.root;
    const marks = (isRoot ? " root" : "") + (node.awaiting_review ? " awaiting" : "");
    const circle = element(
      "circle",
      { r: isRoot ? radius + 4 : radius, class: types.get(node.type || "?") + marks },
      dots,
    );
    const tip = element("title", {}, circle);
    const waiting = node.awaiting_review ? " (awaiting review: it may repeat another memory)" : "";
    tip.textContent = (node.type || "") + ": " + (node.title || node.id) + waiting;
    circle.addEventListener("click", () => {
      if (!dragged) show(node.id, depthWanted);
      dragged = false;
    });
    const label = element("text", {}, dots);
    label.textContent = texts[i];
    return { at: place.get(node.id) || { x: 0, y: 0 }, circle, label };
  });
  const points = nodes.map((node) => node.at);
  const widths = texts.map((text) => textWidth(text) + GAP_PX);
  const order = importance(graph, texts);
  const reveal = revealZooms(points, widths, order);
  shown = { nodes, links, reveal, shift: radius + GAP_AFTER_DOT_PX, zoom: 1, x: 0, y: 0 };
  fit();
  writeLegend(legend, graph, types, kinds);
  const more = graph.graph.truncated ? " (cut short: the walk reached its limit)" : "";
  say(
    graph.nodes.length + " memories, " + graph.links.length + " links" + more + ". Scroll or " +
      "use + and \u2212 to zoom, drag to move; point at a dot for its title.",
  );
}

function writeLegend(legend, graph, types, kinds) {
  const counts = new Map();
  for (const link of graph.links) {
    const kind = link.type || "?";
    counts.set(kind, (counts.get(kind) || 0) + 1);
  }
  const rows = [];
  for (const [type, cls] of types) {
    rows.push([cls, "\u25cf", type + " (" + NODE_COLOURS[Number(cls.slice(1))] + ")"]);
  }
  for (const [kind, cls] of kinds) {
    const words = String(kind).replace(/_/g, " ");
    const colour = EDGE_COLOURS[Number(cls.slice(1))];
    rows.push([cls, "\u2501", colour + " line: " + words + " (" + counts.get(kind) + ")"]);
  }
  for (const [cls, mark, words] of rows) {
    const item = document.createElement("span");
    const swatch = document.createElement("b");
    swatch.className = cls;
    swatch.textContent = mark;
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(" " + words));
    legend.appendChild(item);
  }
}

// Put every dot, line and title where the zoom and pan say, and write the titles revealed.
function arrange() {
  const svg = $("graph");
  const { width, height } = size();
  svg.setAttribute("viewBox", [0, 0, width, height].join(" "));
  const screen = (at) => ({ x: at.x * shown.zoom + shown.x, y: at.y * shown.zoom + shown.y });
  for (const link of shown.links) {
    const a = screen(link.a);
    const b = screen(link.b);
    link.line.setAttribute("x1", a.x);
    link.line.setAttribute("y1", a.y);
    link.line.setAttribute("x2", b.x);
    link.line.setAttribute("y2", b.y);
  }
  shown.nodes.forEach((node, i) => {
    const at = screen(node.at);
    node.circle.setAttribute("cx", at.x);
    node.circle.setAttribute("cy", at.y);
    node.label.setAttribute("x", Math.round(at.x + shown.shift));
    node.label.setAttribute("y", Math.round(at.y + BASELINE_PX));
    node.label.setAttribute("display", shown.reveal[i] <= shown.zoom ? "inline" : "none");
  });
}

function fit() {
  if (!shown) return;
  const { width, height } = size();
  const xs = shown.nodes.map((node) => node.at.x);
  const ys = shown.nodes.map((node) => node.at.y);
  const low = { x: Math.min(...xs), y: Math.min(...ys) };
  const span = { x: Math.max(...xs) - low.x || 1, y: Math.max(...ys) - low.y || 1 };
  const zoom = Math.min((width - 2 * MARGIN_PX) / span.x, (height - 2 * MARGIN_PX) / span.y);
  shown.zoom = Math.max(ZOOMS[0], Math.min(ZOOMS[1], zoom));
  shown.x = (width - span.x * shown.zoom) / 2 - low.x * shown.zoom;
  shown.y = (height - span.y * shown.zoom) / 2 - low.y * shown.zoom;
  shown.byHand = false;
  arrange();
}

// Zoom by `factor` around the screen point (atX, atY), the middle if not given.
function zoomBy(factor, atX, atY) {
  if (!shown) return;
  const { width, height } = size();
  const x = atX === undefined ? width / 2 : atX;
  const y = atY === undefined ? height / 2 : atY;
  const zoom = Math.max(ZOOMS[0], Math.min(ZOOMS[1], shown.zoom * factor));
  shown.x = x - ((x - shown.x) * zoom) / shown.zoom;
  shown.y = y - ((y - shown.y) * zoom) / shown.zoom;
  shown.zoom = zoom;
  shown.byHand = true;
  arrange();
}

function gestures() {
  const svg = $("graph");
  svg.addEventListener(
    "wheel",
    (event) => {
      event.preventDefault();
      // A wheel's notch (100) is one step; a touchpad's small deltas are parts of one.
      const steps = Math.max(-3, Math.min(3, -event.deltaY / 100));
      zoomBy(ZOOM_STEP ** steps, event.offsetX, event.offsetY);
    },
    { passive: false },
  );
  let drag = null;
  svg.addEventListener("pointerdown", (event) => {
    drag = { x: event.clientX, y: event.clientY, moved: false };
  });
  svg.addEventListener("pointermove", (event) => {
    if (!drag || !shown) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return; // a click, not yet a drag
    drag = { x: event.clientX, y: event.clientY, moved: true };
    shown.x += dx;
    shown.y += dy;
    shown.byHand = true;
    arrange();
  });
  svg.addEventListener("pointerup", () => {
    dragged = Boolean(drag && drag.moved); // the click that ends a drag opens nothing
    drag = null;
  });
  svg.addEventListener("pointerleave", () => (drag = null));
  const buttons = { "zoom-in": () => zoomBy(ZOOM_STEP), "zoom-out": () => zoomBy(1 / ZOOM_STEP) };
  buttons.fit = fit;
  for (const [id, action] of Object.entries(buttons)) {
    const button = $(id);
    if (button) button.addEventListener("click", action);
  }
  if (typeof window !== "undefined" && window.addEventListener) {
    // A fitted picture stays fitted when the page changes size, unless moved by hand.
    window.addEventListener("resize", () => (shown && !shown.byHand ? fit() : shown && arrange()));
  }
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
      shown = null;
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
  gestures();
  const wanted = new URLSearchParams(location.hash.slice(1));
  if (wanted.get("node")) $("query").value = wanted.get("node");
  if (wanted.get("depth")) $("depth").value = wanted.get("depth");
  say("Paste a token, then search.");
}

document.addEventListener("DOMContentLoaded", start);
