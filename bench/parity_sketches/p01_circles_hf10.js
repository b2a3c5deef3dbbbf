// hf10 only: circles with varied bleed, texture and opacity
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  brush.scaleBrushes(1.5);
  brush.noStroke();
  const cols = ["#d7263d", "#f46036", "#2e294e", "#1b998b", "#c5d86d"];
  for (let i = 0; i < 5; i++) {
    brush.fill(cols[i], 90 + 30 * i);
    brush.fillBleed(0.05 + 0.1 * i);
    brush.fillTexture(0.2 + 0.15 * i, 0.3);
    brush.circle(110 + 95 * i, 180 + 60 * (i % 2), 55 + 10 * i, i % 3);
  }
  brush.fill("#f2c14e", 160);
  brush.fillBleed(0.2);
  brush.circle(300, 440, 110);
}
