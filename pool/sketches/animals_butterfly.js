async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(301);

  brush.noStroke();
  const wings = [[-1, "#f29e4c"], [1, "#f29e4c"]];
  for (const w of wings) {
    const s = w[0];
    brush.fill(w[1], 130);
    brush.fillBleed(0.3);
    brush.fillTexture(0.6, 0.6);
    brush.beginShape(0.8);
    brush.vertex(300, 290); brush.vertex(300 + s * 90, 160); brush.vertex(300 + s * 200, 170); brush.vertex(300 + s * 170, 290);
    brush.endShape(true);
    brush.fill("#e85d3f", 120);
    brush.beginShape(0.8);
    brush.vertex(300, 310); brush.vertex(300 + s * 150, 320); brush.vertex(300 + s * 130, 420); brush.vertex(300 + s * 50, 410);
    brush.endShape(true);
    brush.fill("#2c2c34", 160);
    brush.fillBleed(0.05);
    brush.circle(300 + s * 140, 215, 12, 0.2);
    brush.circle(300 + s * 100, 370, 10, 0.2);
  }
  brush.fill("#2c2c34", 200);
  brush.fillBleed(0);
  brush.beginShape(0.9);
  brush.vertex(296, 230); brush.vertex(304, 230); brush.vertex(306, 400); brush.vertex(294, 400);
  brush.endShape(true);
  brush.set("pen", "#2c2c34", 1);
  brush.spline([[298, 232], [280, 190], [260, 170]], 0.6);
  brush.spline([[302, 232], [320, 190], [340, 170]], 0.6);
}
