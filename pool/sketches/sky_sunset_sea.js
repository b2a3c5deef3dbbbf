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
  randomSeed(106);

  brush.noStroke();
  brush.fillTexture(0.5, 0.3);
  const bands = [["#f6c68c", 60], ["#f29b76", 130], ["#d97a8a", 200], ["#9b7fb0", 260]];
  brush.fillBleed(0.45);
  for (const b of bands) {
    brush.fill(b[0], 70);
    blob(300, b[1], 380, 70, 14, 0.12);
  }
  brush.fill("#fbe3a1", 150);
  brush.fillBleed(0.2);
  brush.circle(300, 300, 55, 0.1);
  brush.fill("#3d5a80", 110);
  brush.fillBleed(0.1);
  brush.beginShape(0.2);
  brush.vertex(-20, 310); brush.vertex(620, 310); brush.vertex(620, 620); brush.vertex(-20, 620);
  brush.endShape(true);
  brush.fill("#f6c68c", 90);
  for (let i = 0; i < 7; i++) {
    const y = 330 + i * 28, w = 60 - i * 5;
    brush.beginShape(0.5);
    brush.vertex(300 - w, y); brush.vertex(300 + w, y + 2); brush.vertex(300 + w * 0.8, y + 8); brush.vertex(300 - w * 0.7, y + 7);
    brush.endShape(true);
  }
}
