async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(322);

  brush.noStroke();
  const cols = ["#e0607e", "#f2a541", "#c94f7c", "#f28f6b", "#e0607e"];
  for (let i = 0; i < 5; i++) {
    const x = 90 + i * 105, y = 220 + random(-40, 40);
    brush.fill("#5b8c5a", 80);
    brush.fillBleed(0.1);
    brush.fillTexture(0.3, 0.2);
    brush.beginShape(0.3);
    brush.vertex(x - 3, y + 40); brush.vertex(x + 3, y + 40); brush.vertex(x + 5, 560); brush.vertex(x - 5, 560);
    brush.endShape(true);
    brush.beginShape(0.8);
    brush.vertex(x, 470); brush.vertex(x - 45, 380); brush.vertex(x - 10, 430);
    brush.endShape(true);
    brush.fill(cols[i], 120);
    brush.fillBleed(0.25);
    brush.fillTexture(0.5, 0.4);
    brush.beginShape(0.7);
    brush.vertex(x - 32, y - 30); brush.vertex(x - 12, y - 5); brush.vertex(x, y - 40);
    brush.vertex(x + 12, y - 5); brush.vertex(x + 32, y - 30); brush.vertex(x + 28, y + 25);
    brush.vertex(x, y + 45); brush.vertex(x - 28, y + 25);
    brush.endShape(true);
  }
}
