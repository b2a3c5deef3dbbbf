async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(534);

  brush.noStroke();
  brush.fill("#b9d4ea", 80);
  brush.fillBleed(0.4);
  brush.fillTexture(0.5, 0.2);
  brush.rect(-10, -10, 620, 300);
  brush.fill("#e9c46a", 110);
  brush.fillBleed(0.2);
  brush.rect(-10, 280, 620, 330);
  brush.hatchStyle("2B", "#b88a2e", 0.9);
  brush.hatch(9, 80, {rand: 0.2, gradient: 0.3});
  brush.rect(-10, 380, 620, 230);
  brush.noHatch();
  brush.fill("#6f8f5a", 120);
  brush.fillBleed(0.1);
  brush.circle(470, 270, 40, 0.5);
  brush.circle(500, 262, 30, 0.5);
  brush.set("charcoal", "#4a3c2a", 1);
  brush.line(478, 300, 480, 282);
}
