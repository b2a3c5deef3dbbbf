function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fbf6ea");
  brush.noStroke();
  // stems
  brush.set("HB", "#3f6b3a", 1.5);
  for (let i = 0; i < 3; i++) {
    brush.spline([[150 + i * 150, 560], [140 + i * 150, 420], [160 + i * 150, 260]], 0.6);
  }
  brush.noStroke();
  brush.fillBleed(0.25);
  brush.fillTexture(0.5, 0.5);
  // leaves
  brush.fill("#5c8a4b", 110);
  for (let i = 0; i < 3; i++) {
    brush.beginShape(0.6);
    brush.vertex(150 + i * 150, 420);
    brush.vertex(200 + i * 150, 390);
    brush.vertex(230 + i * 150, 410);
    brush.vertex(190 + i * 150, 440);
    brush.endShape(true);
  }
  // blooms
  const cols = ["#c9184a", "#ff4d6d", "#e85d04"];
  for (let i = 0; i < 3; i++) {
    brush.fill(cols[i], 130);
    brush.circle(160 + i * 150, 240, 70, 0.4);
    brush.fill("#800f2f", 90);
    brush.circle(162 + i * 150, 236, 28, 0.6);
  }
}
