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
  randomSeed(802);

  brush.noStroke();
  brush.fill("#7fb0d9", 90);
  brush.fillBleed(0.5);
  brush.fillTexture(0.7, 0.3);
  blob(300, 250, 400, 320, 16, 0.1);
  brush.fill("#fdfbf5", 160);
  brush.fillBleed(0.35);
  brush.fillTexture(0.4, 0.1);
  const clouds = [[160, 180], [420, 140], [330, 330], [110, 420], [480, 440]];
  for (const c of clouds) {
    for (let k = 0; k < 4; k++) brush.circle(c[0] + random(-60, 60), c[1] + random(-15, 15), random(30, 55), 0.5);
  }
  brush.fill("#b9c4d6", 70);
  for (const c of clouds) blob(c[0], c[1] + 30, 80, 14, 10, 0.2);
}
