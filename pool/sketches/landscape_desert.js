async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

// a band of land from the left edge to the right edge, top line at y0 with bumps
function hill(y0, amp, freq, phase, bottom) {
  brush.beginShape(0.5);
  brush.vertex(-20, bottom);
  for (let x = -20; x <= 620; x += 40) {
    brush.vertex(x, y0 - amp * sin(freq * x + phase) - random(0, amp * 0.3));
  }
  brush.vertex(620, bottom);
  brush.endShape(true);
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(606);

  brush.noStroke();
  brush.wash("#f7e2c4", 255);
  brush.rect(0, 0, 600, 600);
  brush.noWash();
  brush.fill("#f5a65b", 80);
  brush.fillBleed(0.45);
  brush.fillTexture(0.5, 0.2);
  brush.circle(420, 180, 70, 0.2);
  brush.fill("#d98c5f", 110);
  brush.fillBleed(0.2);
  hill(380, 40, 0.5, 30, 620);
  brush.fill("#c0714f", 120);
  hill(450, 30, 0.8, 90, 620);
  brush.fill("#7d9a62", 150);
  brush.fillBleed(0.05);
  brush.beginShape(0.5);
  brush.vertex(150, 470); brush.vertex(152, 330); brush.vertex(172, 330); brush.vertex(174, 470);
  brush.endShape(true);
  brush.beginShape(0.5);
  brush.vertex(152, 410); brush.vertex(120, 405); brush.vertex(118, 360); brush.vertex(130, 360); brush.vertex(132, 392); brush.vertex(152, 394);
  brush.endShape(true);
  brush.set("HB", "#8a5a3c", 0.8);
  brush.field("waves");
  for (let i = 0; i < 6; i++) brush.flowLine(random(0, 300), 500 + i * 14, 300, 0);
  brush.noField();
}
