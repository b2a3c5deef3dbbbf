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
  randomSeed(512);

  brush.noStroke();
  brush.fill("#cfe0ea", 70);
  brush.fillBleed(0.4);
  brush.fillTexture(0.5, 0.2);
  blob(300, 150, 360, 150, 14, 0.1);
  const cols = ["#e8b07a", "#d9826f", "#f0d28c", "#9ab7c9", "#e8b07a"];
  for (let i = 0; i < 5; i++) {
    const x = 40 + i * 108, w = 96, h = random(160, 240), y = 480 - h;
    brush.fill(cols[i], 120);
    brush.fillBleed(0.1);
    brush.fillTexture(0.5, 0.5);
    brush.beginShape(0.05);
    brush.vertex(x, y); brush.vertex(x + w, y); brush.vertex(x + w, 480); brush.vertex(x, 480);
    brush.endShape(true);
    brush.fill("#8c4a3c", 130);
    brush.beginShape(0.05);
    brush.vertex(x - 6, y); brush.vertex(x + w / 2, y - 45); brush.vertex(x + w + 6, y);
    brush.endShape(true);
    brush.fill("#4d5e72", 120);
    brush.fillBleed(0.02);
    for (let k = 0; k < 2; k++) {
      const wy = y + 30 + k * 60;
      if (wy + 30 < 470) {
        brush.beginShape(0);
        brush.vertex(x + 20, wy); brush.vertex(x + 40, wy); brush.vertex(x + 40, wy + 28); brush.vertex(x + 20, wy + 28);
        brush.endShape(true);
        brush.beginShape(0);
        brush.vertex(x + 56, wy); brush.vertex(x + 76, wy); brush.vertex(x + 76, wy + 28); brush.vertex(x + 56, wy + 28);
        brush.endShape(true);
      }
    }
  }
  brush.fill("#9b8f80", 90);
  brush.fillBleed(0.2);
  brush.beginShape(0.1);
  brush.vertex(-20, 478); brush.vertex(620, 478); brush.vertex(620, 620); brush.vertex(-20, 620);
  brush.endShape(true);
}
