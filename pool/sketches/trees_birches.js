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
  randomSeed(471);

  brush.noStroke();
  brush.fill("#f2d7a7", 70);
  brush.fillBleed(0.45);
  brush.fillTexture(0.6, 0.2);
  blob(300, 250, 380, 300, 14, 0.1);
  brush.fill("#e9a35b", 80);
  brush.fillBleed(0.35);
  for (let i = 0; i < 10; i++) brush.circle(random(600), random(60, 300), random(40, 80), 0.6);
  for (const x of [110, 230, 390, 500]) {
    brush.fill("#f8f5ef", 200);
    brush.fillBleed(0.02);
    brush.fillTexture(0.2, 0.5);
    brush.rect(x, -10, 26, 620);
    brush.set("charcoal", "#2d2a26", 1.2);
    for (let y = 30; y < 600; y += random(40, 90)) brush.line(x + random(0, 8), y, x + random(14, 26), y + random(-3, 3));
    brush.noStroke();
  }
  brush.fill("#b3723a", 90);
  brush.fillBleed(0.2);
  brush.rect(-10, 520, 620, 90);
}
