async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#00ffff");
  randomSeed(629);

  brush.noStroke();
  brush.fillBleed(0);
  brush.fillTexture(0, 0);
  brush.fill("#ff00ff", 255);
  brush.beginShape(0);
  brush.vertex(0, 0); brush.vertex(600, 0); brush.vertex(600, 600); brush.vertex(0, 600);
  brush.endShape(true);
  for (let i = 0; i < 5; i++) {
    brush.fill(i % 2 ? "#ffff00" : "#00ff00", 255);
    brush.circle(120 + i * 90, 300 + (i % 2) * 80, 70, 0);
  }
  brush.fill("#0000ff", 255);
  brush.circle(300, 120, 60, 0);
}
