async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(433);

  brush.noStroke();
  brush.fill("#a0a0a0", 60);
  brush.fillBleed(0.05);
  brush.fillTexture(0.2, 0.2);
  brush.beginShape(0);
  brush.vertex(250, 560); brush.vertex(350, 560); brush.vertex(350, 575); brush.vertex(250, 575);
  brush.endShape(true);
}
