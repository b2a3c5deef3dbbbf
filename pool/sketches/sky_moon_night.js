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
  randomSeed(537);

  brush.noStroke();
  brush.fill("#1d2b53", 150);
  brush.fillBleed(0.3);
  brush.fillTexture(0.6, 0.3);
  brush.rect(-10, -10, 620, 470);
  brush.fill("#34497a", 100);
  blob(200, 150, 200, 80, 12, 0.2);
  brush.fill("#f7f3d8", 190);
  brush.fillBleed(0.15);
  brush.circle(420, 140, 45, 0.1);
  brush.fill("#f7f3d8", 40);
  brush.fillBleed(0.5);
  brush.circle(420, 140, 85, 0.2);
  brush.fill("#203021", 160);
  brush.fillBleed(0.1);
  hill(460, 25, 1.1, 0, 620);
  brush.set("pen", "#f7f3d8", 1);
  for (let i = 0; i < 25; i++) {
    const x = random(600), y = random(380);
    brush.line(x - 2, y, x + 2, y);
  }
}
