async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(250);

  brush.noStroke();
  brush.fillBleed(0);
  brush.fillTexture(0, 0);
  brush.fill("#000000", 255);
  brush.rect(0, 300, 600, 300);
  brush.fill("#ff0000", 255);
  brush.rect(0, 0, 600, 300);
  brush.fill("#00ff00", 255);
  brush.circle(300, 300, 120, 0);
  brush.set("marker", "#0000ff", 10);
  brush.line(0, 300, 600, 300);
}
