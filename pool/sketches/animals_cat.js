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
  randomSeed(731);

  brush.noStroke();
  brush.fill("#9a9a9a", 110);
  brush.fillBleed(0.1);
  brush.fillTexture(0.3, 0.3);
  blob(300, 380, 130, 110, 12, 0.08);
  brush.circle(300, 240, 75, 0.1);
  brush.beginShape(0);
  brush.vertex(240, 200); brush.vertex(250, 130); brush.vertex(285, 175);
  brush.endShape(true);
  brush.beginShape(0);
  brush.vertex(315, 175); brush.vertex(350, 130); brush.vertex(360, 200);
  brush.endShape(true);
  brush.fill("#303030", 200);
  brush.circle(275, 235, 8, 0);
  brush.circle(325, 235, 8, 0);
}
