// hostile: a brush named with a lone UTF-16 surrogate, written in plain ASCII (the program then cannot be written as JSON)
// expect: limit=none reason=not valid Unicode text
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  translate(-width / 2, -height / 2);
  brush.add("\udfff", { weight: 5 }); brush.set("\udfff", "#d7263d", 3); brush.line(10, 10, 500, 500);
  brush.noStroke(); brush.fill("#d7263d", 200); brush.circle(300, 300, 150);
}
