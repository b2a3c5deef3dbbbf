// hostile: the AsyncFunction and GeneratorFunction constructors
// expect: limit=none reason=forbidden global Function
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  const k = "constr" + "uctor";
  (async function () {})[k]("await 0")();
  (function* () {})[k]("yield 1")().next();
}
