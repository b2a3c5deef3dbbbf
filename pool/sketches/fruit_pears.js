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
  randomSeed(561);

  brush.noStroke();
  // table shadow
  brush.fill("#b9b3c9", 60);
  brush.fillBleed(0.3);
  brush.fillTexture(0.4, 0.2);
  blob(300, 470, 230, 40, 14, 0.08);
  const pears = [[220, 340, "#b7c65a"], [390, 360, "#d9b44a"]];
  for (const p of pears) {
    brush.fill(p[2], 120);
    brush.fillBleed(0.2);
    brush.fillTexture(0.5, 0.5);
    brush.beginShape(0.9);
    brush.vertex(p[0], p[1] - 120);
    brush.vertex(p[0] + 35, p[1] - 80);
    brush.vertex(p[0] + 80, p[1] + 20);
    brush.vertex(p[0] + 50, p[1] + 95);
    brush.vertex(p[0] - 50, p[1] + 95);
    brush.vertex(p[0] - 80, p[1] + 20);
    brush.vertex(p[0] - 35, p[1] - 80);
    brush.endShape(true);
    // blush
    brush.fill("#d9774a", 50);
    brush.fillBleed(0.4);
    brush.circle(p[0] + 30, p[1] + 30, 35, 0.4);
    // stalk
    brush.fill("#6b4b2f", 160);
    brush.fillBleed(0.02);
    brush.beginShape(0.2);
    brush.vertex(p[0] - 2, p[1] - 118); brush.vertex(p[0] + 8, p[1] - 150); brush.vertex(p[0] + 12, p[1] - 148); brush.vertex(p[0] + 3, p[1] - 116);
    brush.endShape(true);
  }
}
