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
  randomSeed(38);

  brush.noStroke();
  brush.fill("#a9c9e2", 80);
  brush.fillBleed(0.45);
  brush.fillTexture(0.6, 0.2);
  blob(300, 180, 380, 200, 14, 0.1);
  brush.fill("#3f6e8f", 110);
  brush.fillBleed(0.2);
  brush.beginShape(0.3);
  brush.vertex(-20, 420); brush.vertex(620, 410); brush.vertex(620, 620); brush.vertex(-20, 620);
  brush.endShape(true);
  brush.fill("#7b6f62", 120);
  brush.beginShape(0.6);
  brush.vertex(250, 470); brush.vertex(320, 380); brush.vertex(430, 390); brush.vertex(520, 480);
  brush.endShape(true);
  brush.fill("#f7f2ea", 170);
  brush.fillBleed(0.05);
  brush.fillTexture(0.3, 0.6);
  brush.beginShape(0.05);
  brush.vertex(350, 390); brush.vertex(362, 170); brush.vertex(398, 170); brush.vertex(410, 390);
  brush.endShape(true);
  brush.fill("#c0392b", 140);
  for (const y of [210, 280, 350]) {
    brush.beginShape(0.05);
    brush.vertex(358, y); brush.vertex(404, y); brush.vertex(406, y + 28); brush.vertex(356, y + 28);
    brush.endShape(true);
  }
  brush.fill("#2d3a4a", 150);
  brush.beginShape(0);
  brush.vertex(355, 170); brush.vertex(380, 140); brush.vertex(405, 170);
  brush.endShape(true);
  brush.fill("#f9e79f", 90);
  brush.fillBleed(0.5);
  brush.circle(380, 160, 40, 0.4);
}
