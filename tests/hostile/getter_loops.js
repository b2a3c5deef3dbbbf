// hostile: an argument whose getter never returns (runs while the call is being recorded)
// expect: limit=time reason=time limit
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  const evil = {};
  Object.defineProperty(evil, "x", { enumerable: true, get() { for (;;) {} } });
  brush.add("evil", evil);
}
