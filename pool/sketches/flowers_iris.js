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

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(326);

  brush.wash("#f6f0e3", 255);
  brush.noWash();
  brush.set("2H", "#4b6b3a", 1.2);
  brush.line(300, 560, 300, 250);
  brush.line(300, 470, 230, 330);
  brush.noStroke();
  brush.fill("#6a8f4e", 90);
  brush.fillBleed(0.1);
  brush.fillTexture(0.4, 0.3);
  brush.beginShape(0.7);
  brush.vertex(300, 560); brush.vertex(250, 380); brush.vertex(290, 450);
  brush.endShape(true);
  brush.beginShape(0.7);
  brush.vertex(305, 560); brush.vertex(370, 360); brush.vertex(320, 470);
  brush.endShape(true);
  brush.fill("#6c5ba7", 130);
  brush.fillBleed(0.3);
  brush.fillTexture(0.6, 0.6);
  for (const a of [-90, 30, 150]) petal(300, 240, 85, 35, a);
  brush.fill("#8e7cc3", 110);
  for (const a of [-30, 90, 210]) petal(300, 250, 70, 28, a);
  brush.fill("#f1c232", 150);
  brush.fillBleed(0.05);
  for (const a of [30, 150]) petal(300, 245, 35, 6, a);
  brush.fill("#5a4d9a", 120);
  petal(232, 322, 30, 12, -120);
}
