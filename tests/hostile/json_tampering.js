// hostile: replaces JSON.stringify / JSON.parse so the host would read an empty, clean result
// expect: limit=none reason=bare p5 drawing text
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  try { JSON.stringify = () => '{"calls":[],"queried":[],"violations":[],"canvas":{"w":600,"h":600}}'; } catch (e) {}
  try { globalThis.JSON = { stringify: () => "{}" }; } catch (e) {}
  text("fine", 0, 0);
}
