async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(7);
  brush.noStroke();
  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.4);
  const petals = ["#d7263d", "#f46036", "#ffb400"];
  for (let i = 0; i < 6; i++) {
    const a = i * 60;
    brush.fill(petals[i % petals.length], 120);
    brush.circle(300 + 80 * cos(a), 300 + 80 * sin(a), 50 + random(10));
  }
  brush.noFill();
  brush.fill("#2e933c", 140);
  brush.beginShape(0.3);
  brush.vertex(290, 380);
  brush.vertex(310, 380);
  brush.vertex(305, 580);
  brush.vertex(295, 580);
  brush.endShape(true);
}
