async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

// one petal: a leaf-like shape from the centre outwards at angle a
function petal(cx, cy, len, wid, a) {
  const tx = cx + len * cos(a), ty = cy + len * sin(a);
  const mx = cx + 0.55 * len * cos(a), my = cy + 0.55 * len * sin(a);
  brush.beginShape(0.8);
  brush.vertex(cx, cy);
  brush.vertex(mx + wid * cos(a + 90), my + wid * sin(a + 90));
  brush.vertex(tx, ty);
  brush.vertex(mx + wid * cos(a - 90), my + wid * sin(a - 90));
  brush.endShape(true);
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
  randomSeed(335);

  brush.noStroke();
  brush.fillBleed(0.02);
  brush.fillTexture(0.1, 0.9);
  for (let k = 0; k < 6; k++) {
    const cx = random(100, 500), cy = random(100, 500);
    brush.fill(random(["#6b5a45", "#5c5f4a", "#7a6a58", "#4d4a40"]), 230);
    for (let i = 0; i < 10; i++) petal(cx, cy, 110, 30, i * 36);
    brush.fill("#3f3a30", 240);
    brush.circle(cx, cy, 30, 0.1);
  }
  brush.fill("#55504a", 220);
  blob(300, 520, 320, 80, 12, 0.2);
}
