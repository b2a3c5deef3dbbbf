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
  randomSeed(355);

  brush.noStroke();
  brush.fill("#a7c7e7", 70);
  brush.fillBleed(0.45);
  brush.fillTexture(0.6, 0.2);
  brush.rect(-10, -10, 620, 620);
  brush.set("2B", "#4f7a3a", 2);
  brush.spline([[300, 600], [310, 450], [300, 300]], 0.5);
  brush.noStroke();
  brush.fill("#6b9a4a", 110);
  brush.fillBleed(0.1);
  petal(305, 460, 90, 30, -20);
  petal(305, 500, 80, 26, 200);
  brush.fill("#f2b705", 140);
  brush.fillBleed(0.25);
  brush.fillTexture(0.5, 0.5);
  for (let i = 0; i < 16; i++) petal(300, 250, 110, 20, i * 22.5 + random(-5, 5));
  brush.fill("#6b3e26", 170);
  brush.fillBleed(0.1);
  brush.circle(300, 250, 45, 0.2);
  brush.hatchStyle("pen", "#3a2116", 0.6);
  brush.hatch(5, 45, {rand: 0.2});
  brush.circle(300, 250, 40, 0.1);
  brush.noHatch();
}
