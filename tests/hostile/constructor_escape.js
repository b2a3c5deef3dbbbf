// hostile: reaches the Function constructor through a function's constructor property (computed name)
// expect: limit=none reason=forbidden global Function
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  const k = "constr" + "uctor";
  const glob = (() => 0)[k]("return globalThis")();
  glob.fetch("http://127.0.0.1:__PORT__/ctor");
}
