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
  randomSeed(596);

  brush.noStroke();
  brush.fill("#e9d8b5", 70);
  brush.fillBleed(0.4);
  brush.fillTexture(0.5, 0.2);
  blob(300, 300, 300, 260, 14, 0.1);
  // branch
  brush.fill("#6b5440", 130);
  brush.fillBleed(0.05);
  brush.beginShape(0.3);
  brush.vertex(40, 430); brush.vertex(560, 380); brush.vertex(560, 392); brush.vertex(40, 445);
  brush.endShape(true);
  // body
  brush.fill("#4a77b4", 130);
  brush.fillBleed(0.2);
  brush.fillTexture(0.5, 0.5);
  blob(300, 330, 90, 60, 12, 0.05);
  brush.circle(370, 270, 42, 0.1);
  // breast
  brush.fill("#e58a4e", 120);
  blob(330, 350, 55, 40, 10, 0.08);
  // tail
  brush.fill("#3b5f93", 130);
  brush.beginShape(0.2);
  brush.vertex(220, 320); brush.vertex(120, 300); brush.vertex(130, 330); brush.vertex(225, 345);
  brush.endShape(true);
  // beak and eye
  brush.fill("#e0b040", 180);
  brush.beginShape(0);
  brush.vertex(405, 262); brush.vertex(440, 272); brush.vertex(405, 282);
  brush.endShape(true);
  brush.fill("#1e1e24", 200);
  brush.circle(382, 262, 6, 0);
}
