async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(460);

  brush.set("charcoal", "#111111", 3);
  for (let i = 0; i < 60; i++) brush.line(random(600), random(600), random(600), random(600));
  brush.set("marker", "#ff0000", 4);
  for (let i = 0; i < 20; i++) brush.line(random(600), random(600), random(600), random(600));
  brush.set("spray", "#00aa00", 5);
  for (let i = 0; i < 15; i++) brush.line(random(600), random(600), random(600), random(600));
}
