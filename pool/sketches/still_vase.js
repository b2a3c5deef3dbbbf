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
  randomSeed(899);

  brush.noStroke();
  brush.fill("#d9cbb4", 70);
  brush.fillBleed(0.2);
  brush.fillTexture(0.4, 0.3);
  brush.beginShape(0.1);
  brush.vertex(-20, 430); brush.vertex(620, 420); brush.vertex(620, 620); brush.vertex(-20, 620);
  brush.endShape(true);
  brush.fill("#5a7fa8", 130);
  brush.fillBleed(0.1);
  brush.fillTexture(0.5, 0.6);
  brush.beginShape(0.8);
  brush.vertex(270, 280); brush.vertex(330, 280); brush.vertex(322, 310); brush.vertex(370, 380);
  brush.vertex(340, 460); brush.vertex(260, 460); brush.vertex(230, 380); brush.vertex(278, 310);
  brush.endShape(true);
  const heads = [[260, 200, "#e07a5f"], [330, 170, "#f2cc8f"], [300, 240, "#d1495b"], [370, 230, "#e07a5f"], [230, 260, "#f2cc8f"]];
  brush.fill("#6b8f5e", 100);
  brush.fillBleed(0.05);
  for (const h of heads) {
    brush.beginShape(0.3);
    brush.vertex(h[0] - 2, h[1]); brush.vertex(h[0] + 3, h[1]); brush.vertex(302, 290); brush.vertex(298, 290);
    brush.endShape(true);
  }
  for (const h of heads) {
    brush.fill(h[2], 120);
    brush.fillBleed(0.3);
    brush.fillTexture(0.5, 0.5);
    brush.circle(h[0], h[1], random(26, 36), 0.6);
  }
  brush.fill("#8a7a66", 50);
  blob(320, 462, 110, 14, 10, 0.1);
}
