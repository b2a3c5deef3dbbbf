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
  randomSeed(356);

  brush.noStroke();
  brush.fill("#8fc1c9", 60);
  brush.fillBleed(0.5);
  brush.fillTexture(0.6, 0.2);
  blob(300, 300, 330, 330, 16, 0.08);
  brush.fill("#4f8a6b", 80);
  brush.fillBleed(0.2);
  brush.circle(470, 150, 60, 0.3);
  brush.circle(130, 470, 70, 0.3);
  const fish = [[230, 260, 20, "#e8743b"], [380, 380, 200, "#e8a23b"]];
  for (const f of fish) {
    const a = f[2];
    brush.fill(f[3], 130);
    brush.fillBleed(0.15);
    brush.fillTexture(0.5, 0.5);
    brush.beginShape(0.9);
    brush.vertex(f[0] + 80 * cos(a), f[1] + 80 * sin(a));
    brush.vertex(f[0] + 25 * cos(a + 90), f[1] + 25 * sin(a + 90));
    brush.vertex(f[0] - 60 * cos(a), f[1] - 60 * sin(a));
    brush.vertex(f[0] + 25 * cos(a - 90), f[1] + 25 * sin(a - 90));
    brush.endShape(true);
    brush.beginShape(0.6);
    brush.vertex(f[0] - 55 * cos(a), f[1] - 55 * sin(a));
    brush.vertex(f[0] - 95 * cos(a) + 25 * cos(a + 90), f[1] - 95 * sin(a) + 25 * sin(a + 90));
    brush.vertex(f[0] - 85 * cos(a), f[1] - 85 * sin(a));
    brush.vertex(f[0] - 95 * cos(a) + 25 * cos(a - 90), f[1] - 95 * sin(a) + 25 * sin(a - 90));
    brush.endShape(true);
    brush.fill("#fdf6ec", 150);
    brush.fillBleed(0.05);
    brush.circle(f[0] + 20 * cos(a), f[1] + 20 * sin(a), 12, 0.4);
  }
}
