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
  randomSeed(378);

  brush.noStroke();
  brush.fill("#e8dcc8", 80);
  brush.fillBleed(0.2);
  brush.fillTexture(0.4, 0.2);
  brush.rect(0, 400, 600, 200);
  brush.fill("#e76f51", 130); brush.fillBleed(0.2); brush.fillTexture(0.5, 0.6);
  brush.circle(240, 330, 55, 0.2);
  brush.fill("#f4d35e", 130);
  brush.circle(330, 310, 60, 0.2);
  brush.fill("#7a9e3f", 130);
  brush.circle(400, 345, 48, 0.2);
  brush.fill("#5b6fa8", 140);
  brush.fillBleed(0.1);
  brush.beginShape(0.8);
  brush.vertex(150, 350); brush.vertex(450, 350); brush.vertex(410, 440); brush.vertex(190, 440);
  brush.endShape(true);
  brush.set("2B", "#2f3b52", 1);
  brush.spline([[150, 350], [300, 365], [450, 350]], 0.5);
  brush.noStroke();
  brush.hatchStyle("HB", "#6d6275", 0.8);
  brush.hatch(6, 30, {rand: 0.1});
  brush.beginShape(0.5);
  brush.vertex(200, 445); brush.vertex(470, 440); brush.vertex(500, 470); brush.vertex(230, 472);
  brush.endShape(true);
  brush.noHatch();
}
