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

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(384);

  brush.noStroke();
  brush.fill("#c8d6cf", 60);
  brush.fillBleed(0.3);
  brush.fillTexture(0.4, 0.2);
  blob(300, 420, 200, 60, 14, 0.05);
  brush.fill("#f0e6d2", 120);
  brush.fillBleed(0.1);
  blob(300, 400, 170, 45, 16, 0.02);
  brush.fill("#7fa7c9", 130);
  brush.fillTexture(0.5, 0.6);
  brush.beginShape(0.7);
  brush.vertex(200, 300); brush.vertex(400, 300); brush.vertex(380, 380); brush.vertex(340, 410); brush.vertex(260, 410); brush.vertex(220, 380);
  brush.endShape(true);
  brush.beginShape(0.8);
  brush.vertex(395, 320); brush.vertex(445, 320); brush.vertex(440, 360); brush.vertex(385, 370); brush.vertex(390, 355); brush.vertex(425, 348); brush.vertex(425, 332); brush.vertex(392, 335);
  brush.endShape(true);
  brush.fill("#a0673c", 140);
  blob(300, 302, 98, 12, 12, 0.03);
  brush.fill("#d8dde3", 60);
  brush.fillBleed(0.5);
  for (let i = 0; i < 3; i++) blob(280 + i * 22, 250 - i * 45, 18, 30, 8, 0.3);
}
