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
  randomSeed(794);

  brush.noStroke();
  brush.fill("#cfe3c0", 70);
  brush.fillBleed(0.4);
  brush.fillTexture(0.5, 0.2);
  blob(300, 430, 380, 200, 14, 0.08);
  brush.noFill();
  brush.field("curved");
  brush.set("HB", "#5f8a4a", 1);
  for (let i = 0; i < 28; i++) brush.flowLine(random(30, 570), 580, random(120, 260), -90 + random(-8, 8));
  brush.noField();
  brush.noStroke();
  const pal = ["#e76f51", "#f4a261", "#e9c46a", "#d67ab1", "#ffffff"];
  for (let i = 0; i < 22; i++) {
    brush.fill(random(pal), 120);
    brush.fillBleed(0.25);
    brush.fillTexture(0.5, 0.5);
    brush.circle(random(40, 560), random(300, 460), random(10, 22), 0.5);
  }
}
