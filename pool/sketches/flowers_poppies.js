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
  randomSeed(227);

  brush.noStroke();
  // stems
  brush.fill("#6a8f4e", 90);
  brush.fillBleed(0.1);
  brush.fillTexture(0.3, 0.3);
  const heads = [[170, 230, 70], [330, 180, 85], [450, 300, 60]];
  for (const h of heads) {
    brush.beginShape(0.4);
    brush.vertex(h[0] - 4, h[1] + 20);
    brush.vertex(h[0] + 4, h[1] + 20);
    brush.vertex(h[0] + 14, 560);
    brush.vertex(h[0] + 6, 560);
    brush.endShape(true);
  }
  // petals
  for (const h of heads) {
    brush.fill("#d8402f", 120);
    brush.fillBleed(0.3);
    brush.fillTexture(0.5, 0.5);
    for (let i = 0; i < 5; i++) petal(h[0], h[1], h[2], h[2] * 0.55, i * 72 + random(-10, 10));
  }
  // dark centres
  brush.fill("#2b2730", 150);
  brush.fillBleed(0.05);
  for (const h of heads) brush.circle(h[0], h[1], h[2] * 0.18, 0.3);
}
