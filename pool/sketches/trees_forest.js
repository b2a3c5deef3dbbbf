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
  randomSeed(59);

  brush.noStroke();
  brush.fill("#dfe8d8", 70);
  brush.fillBleed(0.4);
  brush.fillTexture(0.5, 0.2);
  blob(300, 200, 380, 200, 14, 0.1);
  const rows = [[330, "#9db39a", 70, 0.55], [400, "#6f9475", 95, 0.8], [480, "#3f6b52", 120, 1.0]];
  for (const r of rows) {
    brush.fill(r[1], r[2]);
    brush.fillBleed(0.15);
    brush.fillTexture(0.5, 0.4);
    for (let x = 20; x < 620; x += random(45, 75)) {
      const h = random(120, 190) * r[3], w = random(22, 32) * r[3];
      brush.beginShape(0.2);
      brush.vertex(x, r[0] - h); brush.vertex(x + w, r[0]); brush.vertex(x - w, r[0]);
      brush.endShape(true);
    }
  }
  brush.fill("#5b7d4e", 110);
  hill(500, 8, 2, 0, 620);
}
