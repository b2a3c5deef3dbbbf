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
  randomSeed(980);

  brush.noStroke();
  // sky
  brush.fill("#9cc3e0", 70);
  brush.fillBleed(0.4);
  brush.fillTexture(0.6, 0.2);
  blob(300, 140, 380, 170, 16, 0.1);
  brush.fill("#f3c98b", 60);
  brush.circle(430, 170, 50, 0.3);
  brush.fillBleed(0.2);
  brush.fillTexture(0.5, 0.4);
  brush.fill("#9bb58a", 100); hill(300, 30, 0.9, 10, 620);
  brush.fill("#6f9a6a", 110); hill(380, 25, 1.3, 80, 620);
  brush.fill("#4f7d5c", 120); hill(470, 20, 0.7, 200, 620);
}
