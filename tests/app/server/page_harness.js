// Runs the graph page's script (read from stdin) in Node against a real server, over a small
// stand-in for the browser's DOM: submits the form, waits for the drawing, prints what the SVG
// holds as JSON, then zooms in with the page's + button ZOOMS times and fits again, printing
// each frame's titles. The stand-in's SVG is 900 by 600 pixels, and its canvas measures a
// title at CHAR_PX pixels a letter. Usage:
// node page_harness.js BASE_URL TOKEN QUERY DEPTH [ZOOMS] < graph_view.js
"use strict";
const fs = require("fs");
const vm = require("vm");

const [base, token, query, depth, zooms] = process.argv.slice(2);
const CHAR_PX = 6.5;

class FakeNode {
  constructor(tag) {
    this.tag = tag;
    this.children = [];
    this.attributes = {};
    this.listeners = {};
    this.text = "";
    this.className = "";
    this.value = "";
    const classes = new Set();
    this.classList = { toggle: (name, on) => (on ? classes.add(name) : classes.delete(name)) };
  }
  get firstChild() {
    return this.children[0] || null;
  }
  appendChild(child) {
    this.children.push(child);
    return child;
  }
  removeChild(child) {
    this.children = this.children.filter((c) => c !== child);
    return child;
  }
  setAttribute(key, value) {
    this.attributes[key] = String(value);
  }
  addEventListener(type, listener) {
    (this.listeners[type] = this.listeners[type] || []).push(listener);
  }
  set textContent(value) {
    this.children = [];
    this.text = String(value);
  }
  get textContent() {
    return this.text + this.children.map((child) => child.textContent).join("");
  }
  *walk() {
    yield this;
    for (const child of this.children) yield* child.walk();
  }
}

const elements = {};
const ids = ["ask", "token", "query", "depth", "status", "hits", "graph", "legend"];
for (const id of [...ids, "zoom-in", "zoom-out", "fit"]) {
  elements[id] = new FakeNode(id);
}
Object.assign(elements.graph, { clientWidth: 900, clientHeight: 600 });
function createElement(tag) {
  const node = new FakeNode(tag);
  if (tag === "canvas") {
    node.getContext = () => ({ font: "", measureText: (text) => ({ width: CHAR_PX * text.length }) });
  }
  return node;
}
let ready = null;
globalThis.document = {
  getElementById: (id) => elements[id] || null,
  createElement,
  createElementNS: (ns, tag) => new FakeNode(tag),
  createTextNode: (text) => Object.assign(new FakeNode("#text"), { text: String(text) }),
  addEventListener: (type, listener) => {
    if (type === "DOMContentLoaded") ready = listener;
  },
};
globalThis.location = { hash: "" };
globalThis.history = { replaceState: (state, title, url) => (globalThis.location.hash = url) };
const realFetch = globalThis.fetch;
const asked = [];
globalThis.fetch = (path, options) => {
  // The page may only ask its own server, by path.
  if (!path.startsWith("/v1/")) throw new Error("the page fetched " + path);
  asked.push(path);
  return realFetch(base + path, { headers: options.headers });
};

async function main() {
  vm.runInThisContext(fs.readFileSync(0, "utf8"));
  ready();
  elements.token.value = token;
  elements.query.value = query;
  elements.depth.value = depth;
  await elements.ask.listeners.submit[0]({ preventDefault() {} });
  const svg = [...elements.graph.walk()].slice(1);
  const circles = svg.filter((node) => node.tag === "circle");
  const frames = [frame(svg)];
  for (let step = 0; step < Number(zooms || 0); step += 1) {
    elements["zoom-in"].listeners.click[0]();
    frames.push(frame(svg));
  }
  elements.fit.listeners.click[0]();
  frames.push(frame(svg));
  process.stdout.write(
    JSON.stringify({
      error: null,
      asked,
      status: elements.status.textContent,
      hits: elements.hits.children.map((item) => item.children[0].textContent),
      circles: circles.length,
      root_circles: circles.filter((node) => / root$/.test(node.attributes.class)).length,
      lines: svg.filter((node) => node.tag === "line").length,
      labels: svg
        .filter((node) => node.tag === "text" && node.attributes.class !== "edge")
        .map((node) => ({ text: node.textContent })),
      tags: [...new Set(svg.map((node) => node.tag))],
      hash: globalThis.location.hash,
      legend: elements.legend.textContent,
      frames,
      char_px: CHAR_PX,
    }),
  );
}

// The titles as the SVG holds them: where each starts (its baseline's left end), and whether
// it is written.
function frame(svg) {
  return svg
    .filter((node) => node.tag === "text")
    .map((node) => ({
      text: node.textContent,
      x: Number(node.attributes.x),
      y: Number(node.attributes.y),
      shown: node.attributes.display !== "none",
    }));
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: String(err && err.stack) }));
});
