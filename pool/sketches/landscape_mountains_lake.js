async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

// a soft irregular blob: n vertices around (cx, cy), radius r with wobble w
function blob(cx, cy, rx, ry, n, w) {
  brush.beginShape(0.6);
  for (let i = 0; i < n; i++) {
    const a = (360 * i) / n;
    const k = 1 + random(-w, w);
    brush.vertex(cx + rx * k * cos(a), cy + ry * k * sin(a));
  }
  brush.endShape(true);
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
  randomSeed(883);

  brush.noStroke();
  brush.fillTexture(0.5, 0.4);
  brush.fill("#c9dbe8", 80);
  brush.fillBleed(0.4);
  blob(300, 130, 360, 140, 14, 0.1);
  brush.fillBleed(0.15);
  brush.fill("#7d8fb0", 120);
  brush.beginShape(0.1);
  brush.vertex(-20, 330); brush.vertex(120, 150); brush.vertex(210, 240); brush.vertex(330, 110);
  brush.vertex(470, 260); brush.vertex(540, 200); brush.vertex(620, 300); brush.vertex(620, 340); brush.vertex(-20, 340);
  brush.endShape(true);
  brush.fill("#f4f1ea", 150);
  brush.beginShape(0.2);
  brush.vertex(300, 140); brush.vertex(330, 110); brush.vertex(360, 145); brush.vertex(340, 138); brush.vertex(320, 150);
  brush.endShape(true);
  brush.fill("#4d7a63", 120);
  hill(350, 12, 2, 0, 380);
  brush.fill("#7fb1cf", 90);
  brush.fillBleed(0.3);
  brush.beginShape(0.3);
  brush.vertex(-20, 375); brush.vertex(620, 375); brush.vertex(620, 520); brush.vertex(-20, 520);
  brush.endShape(true);
  brush.fill("#7d8fb0", 50);
  brush.beginShape(0.1);
  brush.vertex(120, 380); brush.vertex(210, 430); brush.vertex(330, 400); brush.vertex(470, 440); brush.vertex(540, 400);
  brush.endShape(true);
  brush.fill("#8a9a5b", 110);
  hill(530, 10, 1.5, 40, 620);
}
