// hostile: reaches fetch through a computed name on the global object (no literal 'fetch' in code)
// expect: limit=none reason=forbidden global fetch
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  const g = (function () { return this; })() || {};
  const name = ["fe", "tch"].join("");
  g[name]("http://127.0.0.1:__PORT__/hidden");
  brush.circle(300, 300, 100);
}
