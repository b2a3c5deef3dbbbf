async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(15);

  brush.set("2B", "#222222", 2);
  brush.field("zigzag");
  for (let i = 0; i < 40; i++) brush.flowLine(random(100, 500), random(100, 500), random(100, 400), random(360));
  brush.noField();
  brush.noStroke();
  brush.fill("#7b6d5d", 230);
  brush.fillBleed(0);
  brush.fillTexture(0, 0);
  brush.circle(300, 300, 90, 0.9);
  brush.fill("#000000", 255);
  brush.circle(270, 280, 20, 0.9);
  brush.circle(340, 280, 20, 0.9);
}
